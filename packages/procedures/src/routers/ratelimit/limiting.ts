import { performance } from 'node:perf_hooks';
import {
  combineCounterChecks,
  formatPermission,
  type PermissionTuple,
  planRatelimitCheck,
  ratelimitCounterKey,
  selectOverride,
} from '@keyplane/core';
import { createRatelimitNamespaces, findRatelimitTargets, type RatelimitTarget } from '@keyplane/db';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { type RootKeyPrincipal, ratelimitPermission, requirePermissions } from '../../middleware/auth.ts';
import {
  MAX_INT4,
  ratelimitDurationSchema,
  ratelimitIdentifierSchema,
  ratelimitNamespaceRefSchema,
} from '../../schemas.ts';
import { namespaceGone } from './namespaces.ts';

/** One `ratelimit.limit` request (reference 3.6), also an element of a `ratelimit.multiLimit` batch. */
export const limitRequestSchema = z.strictObject({
  namespace: ratelimitNamespaceRefSchema,
  identifier: ratelimitIdentifierSchema,
  // Recorded with every decision in `int` columns; a larger value is a 400, not a failed write.
  limit: z.number().int().min(1).max(MAX_INT4),
  duration: ratelimitDurationSchema,
  // A cost above any limit can only fail; bounding it keeps it a safe integer for the engine.
  cost: z.number().int().min(0).max(MAX_INT4).default(1),
});

export type RatelimitRequestInput = z.output<typeof limitRequestSchema>;

export interface LimitDecision {
  /** As sent: the namespace's id or name. */
  namespace: string;
  identifier: string;
  /** The limit that was applied: the override's when one matched. */
  limit: number;
  remaining: number;
  /** End of the current fixed window, unix ms. */
  reset: number;
  /** Whether this check on its own passed (the batch passes only when all do). */
  passed: boolean;
  overrideId?: string;
}

type LimitingContext = Pick<Context, 'em' | 'services' | 'requestId' | 'metricsDisabled'> & {
  rootKey: RootKeyPrincipal;
};

/** Permissions listed once each, so a 403 names each missing one once. */
function distinct(tuples: readonly PermissionTuple[]): PermissionTuple[] {
  return [...new Map(tuples.map((tuple) => [formatPermission(tuple), tuple])).values()];
}

function requireNoneDeleted(targets: readonly RatelimitTarget[]): void {
  if (targets.some((target) => target.namespace?.deleted)) throw namespaceGone();
}

interface ResolvedRequest {
  request: RatelimitRequestInput;
  namespaceId: string;
  overrides: RatelimitTarget['overrides'];
}

function resolved(requests: readonly RatelimitRequestInput[], targets: readonly RatelimitTarget[]): ResolvedRequest[] {
  return requests.map((request, index) => {
    const target = targets[index];
    if (!target?.namespace) throw new Error('a ratelimit namespace was not found right after its creation');
    return { request, namespaceId: target.namespace.id, overrides: target.overrides };
  });
}

/**
 * Resolves every request's namespace, creating the missing ones. Rejections come before any
 * change (a rejected request changes nothing): a deleted namespace is a 410 for the whole call,
 * then the permissions of all requests are checked together: `ratelimit.<id>.limit` (or the
 * wildcard) per existing namespace, and for missing ones `ratelimit.*.create_namespace` plus
 * `ratelimit.*.limit`, since no grant can name the id of a namespace that does not exist yet (the
 * reference creates the namespace first and may then answer 403 for the limit).
 */
async function resolveRequests(
  ctx: LimitingContext,
  requests: readonly RatelimitRequestInput[],
): Promise<ResolvedRequest[]> {
  const { workspaceId } = ctx.rootKey;
  const targets = await findRatelimitTargets(ctx.em, workspaceId, requests);
  requireNoneDeleted(targets);
  const missing = requests.filter((_, index) => targets[index]?.namespace === undefined);
  const required = targets.flatMap((target) =>
    target.namespace ? [ratelimitPermission(target.namespace.id, 'limit')] : [],
  );
  if (missing.length > 0) {
    required.unshift(ratelimitPermission('*', 'create_namespace'), ratelimitPermission('*', 'limit'));
  }
  requirePermissions(ctx.rootKey, distinct(required));
  if (missing.length === 0) return resolved(requests, targets);

  await createRatelimitNamespaces(
    ctx.em,
    workspaceId,
    missing.map((request) => request.namespace),
  );
  // Read again: a concurrent first use may have created (or since deleted) one, and overrides
  // are read with their namespace.
  const created = await findRatelimitTargets(ctx.em, workspaceId, requests);
  requireNoneDeleted(created);
  return resolved(requests, created);
}

/**
 * Checks the requests all-or-nothing (a rejected call consumes nothing, in any namespace) and
 * records one event per request, off the request path. An event's `passed` says whether the
 * request was let through, so within a rejected batch every event says false: nothing was counted.
 */
export async function applyLimits(
  ctx: LimitingContext,
  requests: readonly RatelimitRequestInput[],
): Promise<{ passed: boolean; limits: LimitDecision[] }> {
  const started = performance.now();
  const { services, rootKey } = ctx;
  const checks = (await resolveRequests(ctx, requests)).map(({ request, namespaceId, overrides }) => {
    const override = selectOverride(overrides, request.identifier);
    const plan = planRatelimitCheck(
      { limit: request.limit, durationMs: request.duration, cost: request.cost },
      override,
    );
    return { request, namespaceId, plan };
  });
  // Checks of one counter in the same call count together, as if made one after the other.
  const combined = combineCounterChecks(
    checks.map(({ request, namespaceId, plan }) => ({
      key: ratelimitCounterKey(rootKey.workspaceId, namespaceId, request.identifier, plan.durationMs),
      limit: plan.limit,
      durationMs: plan.durationMs,
      cost: plan.cost,
    })),
  );
  const checked = await services.rateLimiter.check(combined.requests, { hashTag: rootKey.workspaceId });
  const outcomes = combined.spread(checked.results);
  const latencyMs = performance.now() - started;
  const time = services.now();
  const limits = checks.map(({ request, namespaceId, plan }, index): LimitDecision => {
    const outcome = outcomes[index] ?? { passed: false, remaining: 0, reset: time };
    if (!ctx.metricsDisabled)
      services.ratelimitEvents.record({
        time,
        requestId: ctx.requestId,
        workspaceId: rootKey.workspaceId,
        namespaceId,
        identifier: request.identifier,
        passed: checked.passed,
        limit: plan.limit,
        remaining: outcome.remaining,
        overrideId: plan.overrideId ?? null,
        latencyMs,
      });
    return {
      namespace: request.namespace,
      identifier: request.identifier,
      limit: plan.limit,
      remaining: outcome.remaining,
      reset: outcome.reset,
      passed: outcome.passed,
      ...(plan.overrideId === undefined ? {} : { overrideId: plan.overrideId }),
    };
  });
  return { passed: checked.passed, limits };
}
