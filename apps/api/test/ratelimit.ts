import {
  MemoryRateLimitEngine,
  type RateLimitEngine,
  type RedisFailureMode,
  RedisRateLimitEngine,
} from '@keyplane/ratelimit';
import { expect, it, onTestFinished } from 'vitest';
import { callOn } from './appVariants.ts';
import { expectMissingPermissions } from './assertions.ts';
import type { Api, Reply, TestWorkspace } from './harness.ts';
import type { InputOf, OutputOf } from './procedures.ts';

// What the ratelimit.* tests share.

/** ratelimit.limit's answer. */
export type LimitData = OutputOf<'ratelimit.limit'>;

/** ratelimit.limit's input. */
export type LimitBody = InputOf<'ratelimit.limit'>;

/** 30 days, the longest window: a test run never straddles a window boundary of the Redis clock. */
export const LONG_WINDOW = 2_592_000_000;

/** ratelimit.limit on the test app. */
export const limitOn = (api: Api, body: unknown, rootKey: string) =>
  api.post<LimitData>('ratelimit.limit', body, rootKey);

/**
 * Calls the internal `ratelimit.deleteNamespace` through `/trpc`, as the dashboard does (tRPC's
 * body for a mutation is the bare input), and answers the HTTP status and tRPC's error data.
 */
export async function deleteNamespace(api: Api, rootKey: string, namespace: string) {
  const response = await api.fetch('/trpc/ratelimit.deleteNamespace', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
    body: JSON.stringify({ namespace }),
  });
  const body = (await response.json()) as { error?: { message: string; data: { type: string | null } } };
  return { status: response.status, error: body.error };
}

/** A rate limiter on a clock the test sets, for window semantics without waiting (Redis uses its own time). */
export function clockedLimiter(startMs: number) {
  let nowMs = startMs;
  const engine = new MemoryRateLimitEngine({ now: () => nowMs });
  return {
    engine,
    set(ms: number) {
      nowMs = ms;
    },
    /** ratelimit.limit on an app using this limiter. */
    limit: (api: Api, body: LimitBody, rootKey: string): Promise<Reply<LimitData>> =>
      callOn(api, { rateLimiter: engine }, 'ratelimit.limit', body, rootKey),
  };
}

/** A Redis that never answers: port 1 is privileged and no service uses it. */
export const UNREACHABLE_REDIS = 'redis://127.0.0.1:1';

/** A Redis rate limiter whose Redis is unreachable, answering as `redisFailure` says; closed when the test ends. */
export function limiterWithoutRedis(redisFailure: RedisFailureMode): RateLimitEngine {
  const engine = new RedisRateLimitEngine({ redisUrl: UNREACHABLE_REDIS, redisFailure });
  onTestFinished(() => engine.close());
  return engine;
}

/**
 * The 403s of a call (`send`) needing `ratelimit.<namespaceId>.<action>` or its wildcard, to root
 * keys holding only read_namespace, nothing, `others`, or the action on another namespace. The
 * namespace's id is named only to a root key that may read it: to others, the answer is that for a
 * namespace that never was.
 */
export async function expectNamespaceRefusals(
  workspace: TestWorkspace,
  namespace: { id: string; action: string; others: string[] },
  send: (rootKey: string) => Promise<Reply<unknown>>,
): Promise<void> {
  const { id, action, others } = namespace;
  for (const grants of [['ratelimit.*.read_namespace'], [], others, [`ratelimit.rlns_x.${action}`]]) {
    const { rootKey } = await workspace.rootKeyWith(grants);
    const readable = grants.includes('ratelimit.*.read_namespace');
    expectMissingPermissions(await send(rootKey), readable ? `ratelimit.${id}.${action}` : `ratelimit.*.${action}`);
  }
}

/**
 * A procedure's 403s and 200s on the namespace `namespaceId()` names (one made in a beforeAll):
 * expectNamespaceRefusals of `send`, after which `unchanged` finds nothing written, if the title
 * (`leaving`) says so; and a 200 with the action on that namespace, or its wildcard.
 */
export function itNeedsNamespacePermission(
  workspace: TestWorkspace,
  spec: {
    namespaceId: () => string;
    action: string;
    others: string[];
    send: (rootKey: string) => Promise<Reply<unknown>>;
    leaving?: { title: string; unchanged: () => Promise<void> };
  },
): void {
  const { action, others, send, leaving } = spec;
  it(`without ratelimit.<namespaceId>.${action} or the wildcard, naming it${leaving ? `, ${leaving.title}` : ''}`, async () => {
    await expectNamespaceRefusals(workspace, { id: spec.namespaceId(), action, others }, send);
    await leaving?.unchanged();
  });

  it('not with either of them', async () => {
    for (const grant of [`ratelimit.${spec.namespaceId()}.${action}`, `ratelimit.*.${action}`]) {
      const { rootKey } = await workspace.rootKeyWith([grant]);
      expect((await send(rootKey)).status).toBe(200);
    }
  });
}
