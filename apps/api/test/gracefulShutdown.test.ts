import { Agent, get as httpGet } from 'node:http';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { spentAndRecorded } from './dbInspect.ts';
import { callAt } from './harness.ts';
import { useOwnDatabase } from './serverProcess.ts';

// A rolling restart: SIGTERM reaches a node that is answering verifications over keep-alive
// connections. Every request it took is answered, and every answer had its effect.

const CONNECTIONS = 24;
/** Answers before the SIGTERM, so that it arrives in the middle of the load. */
const STOP_AFTER_ANSWERS = 400;
const CREDITS = 1_000_000;

const own = useOwnDatabase();

describe('a server stopped with SIGTERM under load', () => {
  it('answers every request it took, each with its effect, none cut off, and exits 0', async () => {
    const server = await own.spawn();
    const rootKey = server.rootKey;
    if (!rootKey) throw new Error('the server did not bootstrap the database');
    const { apiId } = (await callAt(server.url, 'apis.createApi', { name: 'rolling' }, rootKey)).body.data;
    const { keyId, key } = (
      await callAt(server.url, 'keys.createKey', { apiId, credits: { remaining: CREDITS } }, rootKey)
    ).body.data;

    const answered = new Set<string>();
    let stopped: Promise<number | null> | undefined;
    /** Requests that failed without an answer: refused or dropped before the server read them. */
    let unanswered = 0;
    const connection = async () => {
      for (;;) {
        let reply: Awaited<ReturnType<typeof callAt<'keys.verifyKey'>>>;
        try {
          reply = await callAt(server.url, 'keys.verifyKey', { key }, rootKey);
        } catch (error) {
          // Before the stop nothing may fail; after it, a request may find the node gone.
          if (!stopped) throw error;
          unanswered++;
          return;
        }
        // A complete answer: its body was read and parsed whole.
        expect(reply.status).toBe(200);
        expect(reply.body.data.valid).toBe(true);
        answered.add(reply.body.meta.requestId);
        if (answered.size >= STOP_AFTER_ANSWERS) stopped ??= server.stop();
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, connection));
    expect(await stopped).toBe(0);
    expect(unanswered).toBe(CONNECTIONS);

    const { spent, requestIds } = await spentAndRecorded(own.database.orm.em.fork(), keyId, CREDITS);
    // One credit for each answer, and none for a request that got no answer.
    expect(spent).toBe(answered.size);
    // Every answered verification's event was written before the process exited, once.
    expect(requestIds.sort()).toEqual([...answered].sort());
  }, 60_000);
});

/** GET `path` on a keep-alive connection: the status and the Connection header of the answer. */
function getOn(agent: Agent, url: string, path: string): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = httpGet(`${url}${path}`, { agent }, (response) => {
      response.resume();
      response.once('end', () =>
        resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }),
      );
    });
    request.once('error', reject);
  });
}

describe('a server stopped with SIGTERM and a SHUTDOWN_DRAIN_DELAY_MS', () => {
  it('keeps taking connections for the delay, readiness 503, every answer closing its connection', async () => {
    const DELAY_MS = 3000;
    const server = await own.spawn({
      SHUTDOWN_DRAIN_DELAY_MS: String(DELAY_MS),
    });
    const agent = new Agent({ keepAlive: true });
    try {
      expect(await getOn(agent, server.url, '/v2/readiness')).toEqual({ status: 200, connection: 'keep-alive' });
      const signalled = Date.now();
      const stopped = server.stop();
      let readiness = await getOn(agent, server.url, '/v2/readiness');
      while (readiness.status === 200) readiness = await getOn(agent, server.url, '/v2/readiness');
      expect(readiness).toEqual({ status: 503, connection: 'close' });
      // The /v2 transport and everything else (/trpc, the dashboard, the API's description) alike.
      expect(await getOn(agent, server.url, '/v2/liveness')).toEqual({ status: 200, connection: 'close' });
      expect(await getOn(agent, server.url, '/openapi.json')).toEqual({ status: 200, connection: 'close' });
      await sleep(Math.max(0, signalled + DELAY_MS - 1000 - Date.now()));
      // Still listening a second before the delay ends.
      expect(await getOn(agent, server.url, '/v2/liveness')).toEqual({ status: 200, connection: 'close' });
      expect(await stopped).toBe(0);
      await expect(getOn(agent, server.url, '/v2/liveness')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      agent.destroy();
    }
  }, 60_000);
});

describe('a server stopped with SIGINT (Ctrl-C) and a SHUTDOWN_DRAIN_DELAY_MS', () => {
  it('skips the delay: it stops at once and exits 0', async () => {
    const server = await own.spawn({
      // Ten minutes each: only skipping the delay lets the test end within its timeout.
      SHUTDOWN_DRAIN_DELAY_MS: '600000',
      SHUTDOWN_TIMEOUT_MS: '600000',
    });
    try {
      expect((await fetch(`${server.url}/v2/liveness`)).status).toBe(200);
      expect(await server.interrupt()).toBe(0);
    } finally {
      await server.kill();
    }
  }, 30_000);
});

describe('a server stopped with SIGTERM while a request is still under way at SHUTDOWN_TIMEOUT_MS', () => {
  it('cuts that request off at the deadline and exits 1', async () => {
    const server = await own.spawn({
      SHUTDOWN_TIMEOUT_MS: '300',
    });
    // A request whose body never finishes arriving: under way until the deadline.
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /v2/apis.createApi HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":',
    );
    const closedByServer = new Promise((resolve) => socket.once('close', resolve));
    const started = Date.now();
    expect(await server.stop()).toBe(1);
    await closedByServer;
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  }, 60_000);
});
