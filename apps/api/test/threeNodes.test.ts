import { bootstrapWorkspace } from '@keyplane/core';
import { workspaceStore } from '@keyplane/db';
import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';
import { storedKey } from './dbInspect.ts';
import type { NewKeyInput } from './fixtures.ts';
import { callAt, type ReplyOf } from './harness.ts';
import { useServersOnOwnCluster } from './ownCluster.ts';
import type { InputOf, ProcedurePath } from './procedures.ts';
import { LONG_WINDOW } from './ratelimit.ts';

// Three server processes on one PostgreSQL and a Redis Cluster of three masters (no replicas) of this
// file's own: what holds under concurrent load spread over all three, and what holds and what clients
// see when one node is killed (SIGKILL) or one Redis master is, mid-load. docs/scaling.md, Three nodes
// under faults, states the results.

const NODE_COUNT = 3;

const servers = useServersOnOwnCluster(() => Array.from({ length: NODE_COUNT }, env));
const { nodes } = servers;

/** A node's environment: the shared database and the cluster by its redis+cluster:// URL. */
function env() {
  return { DATABASE_URL: servers.database.url, REDIS_URL: servers.cluster.url };
}
let apiId: string;

beforeAll(async () => {
  // A node listens before its cluster connection is ready, as a balancer waits for readiness.
  await untilReadiness(200);
  apiId = (await call(0, 'apis.createApi', { name: 'three-nodes' })).body.data.apiId;
}, 60_000);

function node(index: number): SpawnedServer {
  const found = nodes[index];
  if (!found) throw new Error(`there is no node ${index}`);
  return found;
}

/** POST /v2/<procedure> to one node, with the bootstrap root key unless another is given. */
function call<P extends ProcedurePath>(at: number, procedure: P, input: InputOf<P>, key = servers.rootKey) {
  return callAt(node(at).url, procedure, input, key);
}

const verify = async (at: number, key: string) => (await call(at, 'keys.verifyKey', { key })).body.data;
const createKey = async (input: NewKeyInput = {}) => (await call(0, 'keys.createKey', { apiId, ...input })).body.data;

/** `count` concurrent calls, spread round-robin over the three nodes; every one must be answered 200. */
async function spread<P extends ProcedurePath>(
  count: number,
  procedure: P,
  input: InputOf<P>,
): Promise<ReplyOf<P>['body']['data'][]> {
  const replies = await Promise.all(
    Array.from({ length: count }, (_, index) => call(index % NODE_COUNT, procedure, input)),
  );
  expect(replies.map(({ status }) => status)).toEqual(Array(count).fill(200));
  return replies.map(({ body }) => body.data);
}

/** Rate-limit checks the nodes answered without Redis so far (keyplane_ratelimit_fallbacks_total). */
async function fallbacksOn(at: readonly number[]): Promise<number> {
  const counts = await Promise.all(
    at.map(async (index) => {
      const exposition = await (await fetch(`${node(index).url}/metrics`)).text();
      return Number(/^keyplane_ratelimit_fallbacks_total (\S+)$/m.exec(exposition)?.[1] ?? Number.NaN);
    }),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

async function readiness(): Promise<{ status: number; detail?: string }[]> {
  return Promise.all(
    nodes.map(async ({ url }) => {
      const response = await fetch(`${url}/v2/readiness`);
      const body = (await response.json()) as { error?: { detail: string } };
      return { status: response.status, detail: body.error?.detail };
    }),
  );
}

async function untilReadiness(status: number): Promise<void> {
  let answers: Awaited<ReturnType<typeof readiness>> = [];
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
    answers = await readiness();
    if (answers.every((answer) => answer.status === status)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the nodes did not all answer readiness ${status} within 15 s: ${JSON.stringify(answers)}`);
}

/** Which of the cluster's masters serves a workspace's counters (its id is their hash tag). */
async function masterServing(workspaceId: string): Promise<number> {
  const slot = Number(await servers.admin.cluster('KEYSLOT', `{${workspaceId}}`));
  const range = (await servers.admin.cluster('SLOTS')).find(([first, last]) => first <= slot && slot <= last);
  return servers.cluster.nodes.findIndex(({ port }) => port === range?.[2]?.[1]);
}

/** A workspace of its own (with a root key holding every permission) on each master, by master. */
async function workspacePerMaster(): Promise<{ workspaceId: string; rootKey: string }[]> {
  const byMaster: { workspaceId: string; rootKey: string }[] = [];
  for (let made = 0; byMaster.filter(Boolean).length < servers.cluster.nodes.length; made++) {
    if (made === 50) throw new Error('50 workspaces did not cover every master');
    const workspace = await servers.database.orm.em
      .fork()
      .transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: `per-master-${made}` }));
    byMaster[await masterServing(workspace.workspaceId)] ??= workspace;
  }
  return byMaster;
}

/** What a client saw of one request: an HTTP answer, or a failure with no answer at all. */
type Seen<P extends ProcedurePath> =
  | { node: number; reply: ReplyOf<P>; ms: number }
  | { node: number; failure: string; ms: number };

/**
 * Keeps `connections` requests under way on each node, each connection sending its next once the
 * last is answered, until `more` says no (asked after each answer) or its request fails without an
 * answer (the node is gone). Resolves with everything the clients saw.
 */
async function load<P extends ProcedurePath>(
  procedure: P,
  input: InputOf<P>,
  { connections, key = servers.rootKey }: { connections: number; key?: string },
  more: (seen: Seen<P>[]) => boolean,
): Promise<Seen<P>[]> {
  const seen: Seen<P>[] = [];
  const connection = async (at: number) => {
    const { url } = node(at);
    for (;;) {
      const started = performance.now();
      try {
        seen.push({ node: at, reply: await callAt(url, procedure, input, key), ms: performance.now() - started });
      } catch (error) {
        seen.push({ node: at, failure: connectionFailure(error), ms: performance.now() - started });
        return;
      }
      if (!more(seen)) return;
    }
  };
  await Promise.all(Array.from({ length: NODE_COUNT * connections }, (_, index) => connection(index % NODE_COUNT)));
  return seen;
}

/** fetch's error for a request that got no HTTP answer, by the socket error beneath it. */
function connectionFailure(error: unknown): string {
  if (!(error instanceof TypeError) || error.message !== 'fetch failed') throw error;
  const cause = error.cause as { code?: string } | undefined;
  return cause?.code ?? String(cause);
}

const answered = <P extends ProcedurePath>(seen: Seen<P>[]) =>
  seen.filter((entry): entry is Extract<Seen<P>, { reply: unknown }> => 'reply' in entry);
const failed = <P extends ProcedurePath>(seen: Seen<P>[]) =>
  seen.filter((entry): entry is Extract<Seen<P>, { failure: string }> => 'failure' in entry);

describe('three server processes on one PostgreSQL and a Redis Cluster', () => {
  it('spend credits exactly: 300 concurrent verifications spread over three nodes give exactly 60 VALID', async () => {
    const { keyId, key } = await createKey({ credits: { remaining: 60 } });

    const answers = await spread(300, 'keys.verifyKey', { key });

    expect(answers.filter(({ code }) => code === 'VALID')).toHaveLength(60);
    expect(answers.filter(({ code }) => code === 'USAGE_EXCEEDED')).toHaveLength(240);
    expect((await storedKey(servers.database.orm.em.fork(), keyId))?.credits_remaining).toBe('0');
  });

  it("never admit more than a key's rate limit: exactly the limit across three nodes", async () => {
    const { key } = await createKey({
      ratelimits: [{ name: 'per_key', limit: 40, duration: LONG_WINDOW, autoApply: true }],
    });

    const answers = await spread(150, 'keys.verifyKey', { key });

    expect(answers.filter(({ code }) => code === 'VALID')).toHaveLength(40);
    expect(answers.filter(({ code }) => code === 'RATE_LIMITED')).toHaveLength(110);
  });

  it('never admit more than ratelimit.limit allows: exactly the limit across three nodes', async () => {
    const body = { namespace: 'three_nodes', identifier: 'user_1', limit: 50, duration: LONG_WINDOW };

    const answers = await spread(200, 'ratelimit.limit', body);

    expect(answers.filter(({ success }) => success)).toHaveLength(50);
    // Nothing was counted for the refused calls.
    expect((await call(2, 'ratelimit.limit', { ...body, cost: 0 })).body.data.remaining).toBe(0);
  });

  it('charge ratelimit.multiLimit all-or-nothing: no limit is counted for a refused call', async () => {
    const first = { namespace: 'three_nodes_a', identifier: 'user_1', limit: 30, duration: LONG_WINDOW };
    const second = { namespace: 'three_nodes_b', identifier: 'user_1', limit: 40, duration: LONG_WINDOW, cost: 2 };

    // The second allows 20 calls (cost 2 of 40), the first 30: a call passes only while both do.
    const answers = await spread(90, 'ratelimit.multiLimit', [first, second]);

    expect(answers.filter(({ passed }) => passed)).toHaveLength(20);
    // The first holds exactly the 20 passes, none of the 70 refusals it would have allowed 10 of.
    expect((await call(1, 'ratelimit.limit', { ...first, cost: 0 })).body.data.remaining).toBe(10);
  });

  it('see a deleted key as gone on the two other nodes as soon as the deletion returns', async () => {
    const { keyId, key } = await createKey();
    // Every node has the key cached as valid.
    expect(await Promise.all([0, 1, 2].map(async (at) => (await verify(at, key)).code))).toEqual(
      Array(3).fill('VALID'),
    );

    expect((await call(0, 'keys.deleteKey', { keyId })).status).toBe(200);

    expect(await Promise.all([1, 2].map(async (at) => (await verify(at, key)).code))).toEqual([
      'NOT_FOUND',
      'NOT_FOUND',
    ]);
  });

  it('see a disabled key as disabled on the two other nodes as soon as the update returns', async () => {
    const { keyId, key } = await createKey();
    expect(await Promise.all([0, 1, 2].map(async (at) => (await verify(at, key)).code))).toEqual(
      Array(3).fill('VALID'),
    );

    expect((await call(1, 'keys.updateKey', { keyId, enabled: false })).status).toBe(200);

    expect(await Promise.all([0, 2].map(async (at) => (await verify(at, key)).code))).toEqual(['DISABLED', 'DISABLED']);
  });

  it('apply an override set, changed or deleted on one node to the next ratelimit.limit on the two others', async () => {
    const body = { namespace: 'three_nodes_override', identifier: 'vip', limit: 5, duration: LONG_WINDOW };
    const limitsOnOthers = async () =>
      Promise.all([1, 2].map(async (at) => (await call(at, 'ratelimit.limit', body)).body.data));
    // Both have the namespace cached without an override.
    expect((await limitsOnOthers()).map(({ limit }) => limit)).toEqual([5, 5]);
    const override = { namespace: body.namespace, identifier: 'v*', duration: LONG_WINDOW };

    const set = await call(0, 'ratelimit.setOverride', { ...override, limit: 500 });
    expect(set.status).toBe(200);
    const { overrideId } = set.body.data;
    expect(await limitsOnOthers()).toMatchObject([
      { limit: 500, overrideId },
      { limit: 500, overrideId },
    ]);

    expect((await call(0, 'ratelimit.setOverride', { ...override, limit: 700 })).status).toBe(200);
    expect(await limitsOnOthers()).toMatchObject([
      { limit: 700, overrideId },
      { limit: 700, overrideId },
    ]);

    expect((await call(0, 'ratelimit.deleteOverride', { namespace: body.namespace, identifier: 'v*' })).status).toBe(
      200,
    );
    expect((await limitsOnOthers()).map(({ limit, overrideId }) => ({ limit, overrideId }))).toEqual([
      { limit: 5, overrideId: undefined },
      { limit: 5, overrideId: undefined },
    ]);
  });
});

describe('three server processes when a Redis master fails (no replicas)', () => {
  /** A workspace served by each master, by master: the first master is the one killed. */
  let byMaster: { workspaceId: string; rootKey: string }[];
  const admittedPerNode = (seen: Seen<'ratelimit.limit'>[]) =>
    [0, 1, 2].map((at) => answered(seen).filter(({ node, reply }) => node === at && reply.body.data.success).length);

  beforeAll(async () => {
    byMaster = await workspacePerMaster();
  });

  it('judge the workspaces of its slots in each node (at most the limit per node), the others exactly in Redis, and are not ready until it is back', async () => {
    const LIMIT = 40;
    const body = { namespace: 'master_killed', identifier: 'user_1', limit: LIMIT, duration: LONG_WINDOW };
    const [affected, unaffected] = byMaster as [(typeof byMaster)[0], (typeof byMaster)[0]];
    type Phase = 'before' | 'outage' | 'after';
    let phase = 'before' as Phase;
    const answeredIn = new Map<object, Phase>();
    let readinessDuringOutage: Awaited<ReturnType<typeof readiness>> = [];
    const onUnaffected: { node: number; reply: ReplyOf<'ratelimit.limit'> }[] = [];
    const outage = async () => {
      while (answeredIn.size < 60) await new Promise((resolve) => setTimeout(resolve, 5));
      await servers.cluster.killMaster(0);
      const killedAt = performance.now();
      phase = 'outage';
      // The workspace on another master: 15 calls on each node, one after another. (Few: a check
      // that waits past the engine's 200 ms command timeout, as on a busy machine, is judged
      // without Redis too.)
      for (let index = 0; index < 15 * NODE_COUNT; index++) {
        const at = index % NODE_COUNT;
        onUnaffected.push({ node: at, reply: await call(at, 'ratelimit.limit', body, unaffected.rootKey) });
      }
      // Long enough for every node to judge its full share, far shorter than cluster-node-timeout
      // (15 s), past which the other masters declare the cluster down (the next test).
      await new Promise((resolve) => setTimeout(resolve, 2500 - (performance.now() - killedAt)));
      readinessDuringOutage = await readiness();
      await servers.cluster.restartMaster(0);
      await untilReadiness(200);
      phase = 'after';
    };
    const track = (seen: Seen<'ratelimit.limit'>[]) => {
      answeredIn.set(seen.at(-1) as object, phase);
      return phase !== 'after' || seen.filter((entry) => answeredIn.get(entry) === 'after').length < 3 * NODE_COUNT;
    };

    const restored = outage();
    // Should the load fail, the master is still back before the next test.
    onTestFinished(() => restored.catch(() => {}));
    const [onAffected] = await Promise.all([
      load('ratelimit.limit', body, { connections: 4, key: affected.rootKey }, track),
      restored,
    ]);

    // Every request, before, during and after the outage, on every node, was answered 200, promptly.
    const replies = answered(onAffected);
    expect(failed(onAffected)).toEqual([]);
    expect([...replies, ...onUnaffected].every(({ reply }) => reply.status === 200)).toBe(true);
    expect(Math.max(...replies.map(({ ms }) => ms))).toBeLessThan(3000);
    // The workspace whose master was down: each node judged it by its own count, which includes what
    // it admitted through Redis before, so each admitted at most the limit in the window, in all
    // three times the limit.
    expect(admittedPerNode(onAffected)).toEqual([LIMIT, LIMIT, LIMIT]);
    // While its checks waited out the command timeout on the dead master.
    const during = answered(onAffected).filter((entry) => answeredIn.get(entry) === 'outage');
    expect(during.filter(({ ms }) => ms >= 200).length).toBeGreaterThan(during.length / 2);
    // The workspace on another master was counted in Redis during the outage: exactly the limit of
    // its 45 calls passed (judged in each node, each node's 15 would have).
    expect(onUnaffected.filter(({ reply }) => reply.body.data.success)).toHaveLength(LIMIT);
    // Every node was not ready during the outage, naming Redis, and each was ready again after it.
    expect(readinessDuringOutage.map(({ status }) => status)).toEqual([503, 503, 503]);
    expect(readinessDuringOutage.every(({ detail }) => detail?.includes('Redis failed'))).toBe(true);
    // Back: each node wrote its counts back into the empty master, so the window stays spent.
    for (const at of [0, 1, 2]) {
      expect((await call(at, 'ratelimit.limit', body, affected.rootKey)).body.data.success).toBe(false);
    }
  }, 60_000);

  it('judge every workspace in each node once the others declare the master failed (cluster-require-full-coverage)', async () => {
    const LIMIT = 20;
    const body = { namespace: 'cluster_down', identifier: 'user_1', limit: LIMIT, duration: LONG_WINDOW };
    const unaffected = byMaster[1] as (typeof byMaster)[0];
    const masters = servers.cluster.nodes.map(({ host, port }) => new Redis(port, host).on('error', () => {}));
    const setNodeTimeout = (ms: number) =>
      Promise.all(masters.map((master) => master.config('SET', 'cluster-node-timeout', String(ms)).catch(() => {})));
    let killed = false;
    onTestFinished(async () => {
      if (killed) await servers.cluster.restartMaster(0);
      await setNodeTimeout(15_000);
      for (const master of masters) master.disconnect();
      await untilReadiness(200);
    });
    // What the masters wait before they declare one failed, 15 s by default, made short.
    await setNodeTimeout(500);

    await servers.cluster.killMaster(0);
    killed = true;
    await expect
      .poll(async () => String(await masters[1]?.cluster('INFO')), { timeout: 10_000, interval: 100 })
      .toContain('cluster_state:fail');
    const calls = 50 * NODE_COUNT;
    const seen = await load(
      'ratelimit.limit',
      body,
      { connections: 4, key: unaffected.rootKey },
      (seen) => seen.length < calls,
    );

    // The surviving masters refuse every command (CLUSTERDOWN) while the cluster does not cover
    // every slot: a workspace on a master that is up is judged in each node too, at most the limit each.
    expect(failed(seen)).toEqual([]);
    expect(answered(seen).every(({ reply }) => reply.status === 200)).toBe(true);
    expect(admittedPerNode(seen)).toEqual([LIMIT, LIMIT, LIMIT]);
  }, 60_000);

  it('write their own counts back into a master that restarted empty, though no check noticed it was gone', async () => {
    const LIMIT = 10;
    const body = { namespace: 'master_restarted', identifier: 'user_1', limit: LIMIT, duration: LONG_WINDOW };
    const workspace = byMaster[1] as (typeof byMaster)[0];
    for (let index = 0; index < LIMIT; index++) {
      expect((await call(0, 'ratelimit.limit', body, workspace.rootKey)).body.data.success).toBe(true);
    }

    await servers.cluster.killMaster(1);
    await servers.cluster.restartMaster(1);

    expect((await call(0, 'ratelimit.limit', body, workspace.rootKey)).body.data).toMatchObject({
      success: false,
      remaining: 0,
    });
  }, 30_000);
});

describe('three server processes when one is killed (SIGKILL) mid-load', () => {
  it('cut off only the requests under way on it; the others answer 200; credits and limits are never overspent', async () => {
    const CREDITS = 600;
    const LIMIT = 300;
    const KILL_AFTER_ANSWERS = 200;
    const { keyId, key } = await createKey({ credits: { remaining: CREDITS } });
    const body = { namespace: 'node_killed', identifier: 'user_1', limit: LIMIT, duration: LONG_WINDOW };
    const victim = NODE_COUNT - 1;

    let killed: Promise<number | null> | undefined;
    const killAfter =
      <P extends ProcedurePath>(spent: (reply: ReplyOf<P>) => boolean) =>
      (seen: Seen<P>[]) => {
        if (seen.length >= KILL_AFTER_ANSWERS) killed ??= node(victim).kill();
        // Until the kill, and then until the budget is spent.
        const last = seen.at(-1);
        return !killed || !(last && 'reply' in last && spent(last.reply));
      };
    const [verifications, decisions] = await Promise.all([
      load(
        'keys.verifyKey',
        { key },
        { connections: 8 },
        killAfter((reply) => reply.body.data.code === 'USAGE_EXCEEDED'),
      ),
      load(
        'ratelimit.limit',
        body,
        { connections: 8 },
        killAfter((reply) => !reply.body.data.success),
      ),
    ]);
    await killed;

    for (const seen of [verifications, decisions]) {
      // What clients of the killed node saw: requests under way got no HTTP answer, only a socket error.
      const cutOff = failed(seen);
      expect(cutOff.length).toBeGreaterThan(0);
      expect(cutOff.every(({ node }) => node === victim)).toBe(true);
      expect(new Set(cutOff.map(({ failure }) => failure))).toSatisfy((codes: Set<string>) =>
        [...codes].every((code) => ['UND_ERR_SOCKET', 'ECONNRESET', 'ECONNREFUSED'].includes(code)),
      );
      // Everything answered, before and after the kill, on every node, was a 200.
      expect(answered(seen).every(({ reply }) => reply.status === 200)).toBe(true);
    }
    // Credits: never more VALID answers than credits, and the balance is spent to 0. The gap is
    // what the cut-off requests spent: each spent at most one credit, answered or not.
    const valid = answered(verifications).filter(({ reply }) => reply.body.data.code === 'VALID').length;
    expect(valid).toBeLessThanOrEqual(CREDITS);
    expect(CREDITS - valid).toBeLessThanOrEqual(failed(verifications).length);
    expect((await storedKey(servers.database.orm.em.fork(), keyId))?.credits_remaining).toBe('0');
    // The limit likewise: never more admitted answers than the limit; the window is spent. Only a
    // check Redis did not answer within the command timeout (a machine overloaded for 200 ms) is
    // judged by its node instead, within the bound docs/scaling.md gives: none, as a rule.
    const admitted = answered(decisions).filter(({ reply }) => reply.body.data.success).length;
    const survivors = Array.from({ length: NODE_COUNT }, (_, index) => index).filter((index) => index !== victim);
    expect(admitted).toBeLessThanOrEqual(LIMIT + (await fallbacksOn(survivors)));
    expect(LIMIT - admitted).toBeLessThanOrEqual(failed(decisions).length);
    expect((await call(0, 'ratelimit.limit', { ...body, cost: 0 })).body.data.remaining).toBe(0);

    // A revocation on a survivor is seen by the other at once; the dead node does not hold it up.
    const revoked = await createKey();
    expect((await verify(1, revoked.key)).code).toBe('VALID');
    const started = performance.now();
    expect((await call(0, 'keys.deleteKey', { keyId: revoked.keyId })).status).toBe(200);
    // Not the full second the deleting node would wait for a node that is alive but does not confirm.
    expect(performance.now() - started).toBeLessThan(1000);
    expect((await verify(1, revoked.key)).code).toBe('NOT_FOUND');

    // A replacement takes the killed node's place.
    nodes[victim] = await spawnServer(env());
    await untilReadiness(200);
  }, 60_000);
});
