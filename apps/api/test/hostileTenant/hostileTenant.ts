import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { bootstrapWorkspace } from '@keyplane/core';
import { rows, sql, workspaceStore } from '@keyplane/db';
import { afterAll, beforeAll, expect } from 'vitest';
import { filledBeforeAll } from '../filledBeforeAll.ts';
import { callAt } from '../harness.ts';
import type { InputOf, ProcedurePath } from '../procedures.ts';
import { bootstrapRootKey, type ServerProcess, startServerProcess } from '../serverProcess.ts';

/**
 * How long another workspace's verification may take while a hostile workspace sends the largest
 * request of a kind to the same node (docs/contract.md#limits). Generous, for a loaded two-core
 * machine where a verification takes a few milliseconds; the stalls the limits prevent lasted
 * seconds to minutes.
 */
export const VICTIM_LATENCY_BOUND_MS = 1000;

/** The most memory the node may have held at any time, largest requests included: an idle node holds a few hundred megabytes. */
export const NODE_MEMORY_BOUND_BYTES = 1024 ** 3;

/** How long each attack keeps sending its request, so that the victim's verifications overlap it. */
const ATTACK_MS = 2000;

export interface Answer {
  status: number;
  body: unknown;
}

/**
 * Per test file: one real server process (its own database, the environment's Redis) holding two
 * workspaces. The hostile one (the bootstrap workspace, every permission) builds up the most a
 * workspace may hold and sends the largest requests; the victim verifies a key meanwhile, and
 * `victimLatencies` says how long each of its verifications took.
 */
export function useHostileTenancy(env: Record<string, string> = {}) {
  let server: ServerProcess | undefined;
  const tenancy = filledBeforeAll<{
    server: ServerProcess;
    url: string;
    hostileRootKey: string;
    hostileWorkspaceId: string;
    victim: { rootKey: string; key: string };
  }>('useHostileTenancy');
  const ready = tenancy.read;

  beforeAll(async () => {
    server = await startServerProcess(env);
    const hostileRootKey = bootstrapRootKey(server);
    // The only workspace yet: the one the server bootstrapped.
    const [bootstrapped] = await rows(server.database.orm.em.fork(), sql<{ id: string }>`select id from workspaces`);
    const hostileWorkspaceId = bootstrapped?.id;
    if (!hostileWorkspaceId) throw new Error('the server bootstrapped no workspace');
    const workspace = await server.database.orm.em
      .fork()
      .transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: 'victim' }));
    const api = await callAt(server.url, 'apis.createApi', { name: 'victim' }, workspace.rootKey);
    const key = await callAt(server.url, 'keys.createKey', { apiId: api.body.data.apiId }, workspace.rootKey);
    const victim = { rootKey: workspace.rootKey, key: key.body.data.key as string };
    tenancy.fill({ server, url: server.url, hostileRootKey, hostileWorkspaceId, victim });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  /** POST to the node with the hostile root key; the answer's status and parsed body. */
  async function send(path: string, body: unknown, rootKey = ready().hostileRootKey): Promise<Answer> {
    const response = await fetch(`${ready().server.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  /** One verification by the victim, timed from the client: what another workspace waits. */
  async function verifyAsVictim(): Promise<number> {
    const { victim: caller } = ready();
    const started = performance.now();
    const answer = await send('/v2/keys.verifyKey', { key: caller.key }, caller.rootKey);
    const elapsed = performance.now() - started;
    expect(answer.status).toBe(200);
    expect((answer.body as { data: { valid: boolean } }).data.valid).toBe(true);
    return elapsed;
  }

  // hostileRootKey: the hostile workspace's root key (every permission).
  return Object.assign(tenancy.fields('server', 'url', 'hostileRootKey', 'hostileWorkspaceId'), {
    send,
    /** The most memory the node's process has held since it started (Linux: VmHWM). */
    async peakMemoryBytes(): Promise<number> {
      const status = await readFile(`/proc/${ready().server.pid}/status`, 'utf8');
      const peak = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
      if (peak === undefined) throw new Error('no VmHWM in /proc/<pid>/status');
      return Number(peak) * 1024;
    },
    /** POST /v2/<procedure> as the hostile workspace, typed by the router. */
    call<P extends ProcedurePath>(procedure: P, input: InputOf<P>) {
      return callAt(ready().server.url, procedure, input, ready().hostileRootKey);
    },
    /**
     * Sends `request` over `connections` connections, again and again for a few seconds, while the
     * victim verifies one key after the other; answers each verification's duration. Every answer
     * to the attack must be what `expectAnswer` expects.
     */
    async victimLatencies(
      request: () => Promise<Answer>,
      expectAnswer: (answer: Answer) => void,
      connections = 2,
    ): Promise<number[]> {
      await verifyAsVictim();
      const until = performance.now() + ATTACK_MS;
      let attacking = true;
      const attacks = Array.from({ length: connections }, async () => {
        while (performance.now() < until) expectAnswer(await request());
      });
      const attack = Promise.all(attacks).finally(() => {
        attacking = false;
      });
      const latencies: number[] = [];
      while (attacking) latencies.push(await verifyAsVictim());
      await attack;
      return latencies;
    },
  });
}

export type HostileTenancy = ReturnType<typeof useHostileTenancy>;

/** The victim was served within the bound throughout, and was served at all. */
export function expectVictimServed(latencies: number[]): void {
  expect(latencies.length).toBeGreaterThan(3);
  expect(Math.max(...latencies)).toBeLessThan(VICTIM_LATENCY_BOUND_MS);
}
