import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { useWorkspace } from '../fixtures.ts';
import { createTestApi, createTestKey, MAX_BODY_BYTES, useApi } from '../harness.ts';

// What only raw sockets show of the /v2 transport: bodies streamed or declared over the limit, and
// calls that arrive in one turn of the event loop (answered in one batch).
const api = useApi();
let baseUrl: string;
const workspace = useWorkspace(api);

beforeAll(async () => {
  baseUrl = api.url;
});

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}/v2/apis.createApi`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${workspace.rootKey}`, ...headers },
    body,
  });

describe('/v2 over a socket', () => {
  it('reads the body from the Node request', async () => {
    const response = await post(JSON.stringify({ name: 'over-socket' }));
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { apiId: string } }).data.apiId).toMatch(/^api_/);
  });

  it('answers 413 for a declared length over the limit', async () => {
    const response = await post(JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES) }));
    expect(response.status).toBe(413);
  });

  it('answers 413 for a streamed body over the limit with no declared length', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > MAX_BODY_BYTES + chunk.length) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${baseUrl}/v2/apis.createApi`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${workspace.rootKey}` },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  it('answers 400 for malformed JSON', async () => {
    expect((await post('{"name":')).status).toBe(400);
  });

  it('answers 405 with Allow for other methods, and 404 for unknown procedures', async () => {
    const wrongMethod = await fetch(`${baseUrl}/v2/apis.createApi`, { method: 'GET' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect((await fetch(`${baseUrl}/v2/apis.nothing`, { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('hands liveness and everything else to the app', async () => {
    expect((await fetch(`${baseUrl}/v2/liveness`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/elsewhere`)).status).toBe(404);
  });

  it('carries requestId and content type on every answer', async () => {
    const response = await post(JSON.stringify({ name: 'with-meta' }));
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(((await response.json()) as { meta: { requestId: string } }).meta.requestId).toMatch(/^req_/);
  });

  describe('calls that arrive together (answered in one batch)', () => {
    const createKeys = async (count: number) => {
      const apiId = await createTestApi(api, workspace.rootKey);
      return Promise.all(
        Array.from({ length: count }, (_, index) =>
          createTestKey(api, workspace.rootKey, { apiId, name: `k${index}` }),
        ),
      );
    };
    const verifyBody = (key: string) => JSON.stringify({ key });

    it('gives each call on its own connection its own answer', async () => {
      const keys = await createKeys(30);
      const replies = await Promise.all(
        keys.map(async ({ key }) => {
          const response = await fetch(`${baseUrl}/v2/keys.verifyKey`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${workspace.rootKey}` },
            body: verifyBody(key),
          });
          return (await response.json()) as { meta: { requestId: string }; data: { keyId: string; name: string } };
        }),
      );
      expect(replies.map((reply) => reply.data.keyId)).toEqual(keys.map((created) => created.keyId));
      expect(replies.map((reply) => reply.data.name)).toEqual(keys.map((_, index) => `k${index}`));
      expect(new Set(replies.map((reply) => reply.meta.requestId)).size).toBe(keys.length);
    });

    it('answers calls pipelined on one connection in order, failures among them', async () => {
      const keys = await createKeys(10);
      const request = (body: string) =>
        `POST /v2/keys.verifyKey HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n` +
        `Authorization: Bearer ${workspace.rootKey}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      const bodies = keys.flatMap(({ key }, index) =>
        index % 3 === 0 ? [verifyBody(key), '{"key":'] : [verifyBody(key)],
      );
      const answers = await pipelined(bodies.map(request).join(''), bodies.length);
      expect(answers.map((answer) => answer.status)).toEqual(bodies.map((body) => (body === '{"key":' ? 400 : 200)));
      const verified = answers.filter((answer) => answer.status === 200).map((answer) => answer.body.data.keyId);
      expect(verified).toEqual(keys.map((created) => created.keyId));
    });
  });
});

/** Writes `raw` in one piece on a new connection and reads `count` responses off it, in order. */
function pipelined(raw: string, count: number) {
  return new Promise<{ status: number; body: { data: { keyId: string } } }[]>((resolve, reject) => {
    const socket = connect(Number(new URL(baseUrl).port), '127.0.0.1', () => socket.write(raw));
    let received = Buffer.alloc(0);
    const answers: { status: number; body: { data: { keyId: string } } }[] = [];
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      for (;;) {
        const headEnd = received.indexOf('\r\n\r\n');
        if (headEnd < 0) break;
        const head = received.subarray(0, headEnd).toString();
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
        if (received.length < headEnd + 4 + length) break;
        const body = received.subarray(headEnd + 4, headEnd + 4 + length).toString();
        answers.push({ status: Number(head.split(' ')[1]), body: JSON.parse(body) });
        received = received.subarray(headEnd + 4 + length);
      }
      if (answers.length === count) {
        socket.destroy();
        resolve(answers);
      }
    });
    socket.on('error', reject);
  });
}
