import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type ChangeLog, namespaceCacheKey, overrideCacheKey } from '@keyplane/caches';
import {
  combineCounterChecks,
  forbidden,
  isGranted,
  type MaybePromise,
  missingPermissions,
  namespaceGone,
  patternMatchingCost,
  patternOverrideFor,
  planRatelimitCheck,
  type RatelimitNamespaceSnapshot,
  type RatelimitOverrideRule,
  ratelimitCounterKey,
} from '@keyplane/core';
import { createRatelimitNamespaces, findExactOverride, findRatelimitNamespace } from '@keyplane/db';
import type { RatelimitDecision } from '@keyplane/events';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { type RootKeyPrincipal, ratelimitPermission } from '../../middleware/auth.ts';
import {
  MAX_INT4,
  ratelimitDurationSchema,
  ratelimitIdentifierSchema,
  ratelimitNamespaceRefSchema,
} from '../../schemas.ts';

const LIMIT_ANY = ratelimitPermission('*', 'limit');
const CREATE_ANY = ratelimitPermission('*', 'create_namespace');

/** One `ratelimit.limit` request (docs/contract.md#limiting), also an element of a `ratelimit.multiLimit` batch. */
export const limitRequestSchema = z
  .strictObject({
    namespace: ratelimitNamespaceRefSchema,
    identifier: ratelimitIdentifierSchema,
    // Recorded with every decision in `int` columns; a larger value is a 400, not a failed write.
    limit: z.number().int().min(1).max(MAX_INT4),
    duration: ratelimitDurationSchema,
    // A cost above any limit can only fail; bounding it keeps it a safe integer for the engine.
    cost: z.number().int().min(0).max(MAX_INT4).default(1),
  })
  .meta({ examples: [{ namespace: 'api.requests', identifier: 'user_123', limit: 100, duration: 60_000 }] });

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
  changeLog: ChangeLog;
};

interface ResolvedRequest {
  request: RatelimitRequestInput;
  namespace: RatelimitNamespaceSnapshot;
}

/** The values, at once when none is a promise (no microtask turn to wait for), else once all have resolved. */
function allOf<T>(values: readonly MaybePromise<T>[]): MaybePromise<T[]> {
  return values.some((value) => value instanceof Promise) ? Promise.all(values) : (values as T[]);
}

/**
 * Every distinct namespace the requests name, from this node's cache (docs/architecture.md#caches):
 * a change to a namespace or its overrides evicts it on every node before the change is answered.
 * At once when all are cached, as they are on the hot path.
 */
function cachedNamespaces(
  ctx: LimitingContext,
  names: readonly string[],
): MaybePromise<Map<string, RatelimitNamespaceSnapshot | null>> {
  const { workspaceId } = ctx.rootKey;
  const { namespaceCache } = ctx.services;
  const distinctNames = [...new Set(names)];
  const found = allOf(
    distinctNames.map((name) =>
      namespaceCache.lookUp(
        namespaceCacheKey(workspaceId, name),
        async () => (await findRatelimitNamespace(ctx.em, workspaceId, name)) ?? null,
      ),
    ),
  );
  const byName = (namespaces: (RatelimitNamespaceSnapshot | null)[]) =>
    new Map(distinctNames.map((name, index) => [name, namespaces[index] ?? null]));
  return found instanceof Promise ? found.then(byName) : byName(found);
}

/**
 * Resolves every request's namespace, creating the missing ones. Rejections come before any
 * change (a rejected request changes nothing): a root key without `ratelimit.*.limit` naming a
 * namespace it may neither limit on nor read gets one 403 however that namespace stands (naming the
 * wildcards); a deleted namespace is
 * a 410 for the whole call; then the permissions of all requests are checked together:
 * `ratelimit.<id>.limit` (or the wildcard) per existing namespace, and for missing ones
 * `ratelimit.*.create_namespace` plus `ratelimit.*.limit`, since no grant can name the id of a
 * namespace that does not exist yet (the reference creates the namespace first and may then answer
 * 403 for the limit).
 */
function resolveRequests(
  ctx: LimitingContext,
  requests: readonly RatelimitRequestInput[],
  namespaces: Map<string, RatelimitNamespaceSnapshot | null>,
): MaybePromise<ResolvedRequest[]> {
  const { permissions } = ctx.rootKey;
  const known = [...namespaces.values()].filter((namespace) => namespace !== null);
  if (known.some((namespace) => namespace.deleted)) {
    refuseOutOfReach(permissions, namespaces);
    throw namespaceGone();
  }
  const missing = [...namespaces].filter(([, namespace]) => namespace === null).map(([name]) => name);
  // Each namespace once, however many names it was called by, so a 403 names each missing permission once.
  const required = [...new Set(known.map((namespace) => namespace.id))].map((id) => ratelimitPermission(id, 'limit'));
  if (missing.length > 0) required.unshift(CREATE_ANY, LIMIT_ANY);
  if (!required.every((permission) => isGranted(permissions, permission))) {
    refuseOutOfReach(permissions, namespaces);
    throw forbidden(missingPermissions(permissions, required));
  }

  const resolved = () =>
    requests.map((request) => {
      const namespace = namespaces.get(request.namespace);
      if (!namespace) throw new Error('a ratelimit namespace was not resolved');
      return { request, namespace };
    });
  return missing.length > 0 ? createMissing(ctx, missing, namespaces).then(resolved) : resolved();
}

/**
 * Before a call is refused for a namespace (410, 403): a root key whose grants name namespaces
 * learns nothing of the others, so a namespace it may neither limit on nor read gets the 403 of a
 * missing one, whether it exists, was deleted or never was. Called only on the way to a refusal:
 * a call that passes pays nothing for it.
 */
function refuseOutOfReach(
  permissions: readonly string[],
  namespaces: Map<string, RatelimitNamespaceSnapshot | null>,
): void {
  if (isGranted(permissions, LIMIT_ANY)) return;
  const inReach = (id: string) =>
    isGranted(permissions, ratelimitPermission(id, 'limit')) ||
    isGranted(permissions, ratelimitPermission(id, 'read_namespace'));
  const outOfReach = [...namespaces.values()].some((namespace) => namespace === null || !inReach(namespace.id));
  if (outOfReach) throw forbidden(missingPermissions(permissions, [CREATE_ANY, LIMIT_ANY]));
}

/** Creates the namespaces named but missing, and puts them in `namespaces`. */
async function createMissing(
  ctx: LimitingContext,
  missing: string[],
  namespaces: Map<string, RatelimitNamespaceSnapshot | null>,
): Promise<void> {
  const { workspaceId } = ctx.rootKey;
  await createRatelimitNamespaces(ctx.em, ctx.changeLog, workspaceId, missing, ctx.services.limits.ratelimitNamespaces);
  // Read past the cache: a concurrent first use may have created (or since deleted) one.
  for (const name of missing) {
    const created = await findRatelimitNamespace(ctx.em, workspaceId, name);
    if (!created) throw new Error('a ratelimit namespace was not found right after its creation');
    if (created.deleted) throw namespaceGone();
    namespaces.set(name, created);
  }
}

/** The namespace's override for exactly this identifier, from this node's cache (at once when cached). */
function exactOverrideFor(
  ctx: LimitingContext,
  namespace: RatelimitNamespaceSnapshot,
  identifier: string,
): MaybePromise<RatelimitOverrideRule | null> {
  // With no exact overrides in the namespace there is nothing to look up.
  if (namespace.exactOverrides === 0) return null;
  return ctx.services.overrideCache.lookUp(
    overrideCacheKey(namespace.id, identifier),
    async () => (await findExactOverride(ctx.em, namespace.id, identifier)) ?? null,
  );
}

/**
 * How many characters of identifiers and patterns one turn of the event loop matches, about a
 * millisecond's work: a call whose matching takes longer lets other requests run between turns
 * (docs/contract.md#limits).
 */
const MATCHING_PER_TURN = 200_000;

/**
 * The override each request gets (docs/contract.md#overrides): its exact one, else the matching
 * pattern that takes precedence. Matching is linear in the identifier and the patterns; a call of
 * many checks in namespaces of many patterns is matched over several turns of the event loop, so
 * that no call holds it for long. At once when everything is cached and the matching fits in a turn.
 */
function overridesFor(
  ctx: LimitingContext,
  resolved: readonly ResolvedRequest[],
): MaybePromise<(RatelimitOverrideRule | undefined)[]> {
  const finding = allOf(resolved.map(({ request, namespace }) => exactOverrideFor(ctx, namespace, request.identifier)));
  const matchAll = (exact: (RatelimitOverrideRule | null)[]) => {
    let cost = 0;
    for (let index = 0; index < resolved.length; index += 1) cost += matchingCost(resolved, exact, index);
    if (cost > MATCHING_PER_TURN) return matchInTurns(resolved, exact);
    return resolved.map(
      ({ request, namespace }, index) => exact[index] ?? patternOverrideFor(namespace, request.identifier),
    );
  };
  return finding instanceof Promise ? finding.then(matchAll) : matchAll(finding);
}

/** What matching request `index` against its namespace's patterns reads: nothing when it has an exact override. */
function matchingCost(
  resolved: readonly ResolvedRequest[],
  exact: readonly (RatelimitOverrideRule | null)[],
  index: number,
): number {
  const { request, namespace } = resolved[index] as ResolvedRequest;
  return exact[index] ? 0 : patternMatchingCost(namespace, request.identifier);
}

async function matchInTurns(
  resolved: readonly ResolvedRequest[],
  exact: readonly (RatelimitOverrideRule | null)[],
): Promise<(RatelimitOverrideRule | undefined)[]> {
  const overrides: (RatelimitOverrideRule | undefined)[] = [];
  let matched = 0;
  for (const [index, { request, namespace }] of resolved.entries()) {
    const cost = matchingCost(resolved, exact, index);
    if (matched > 0 && matched + cost > MATCHING_PER_TURN) {
      await nextTurn();
      matched = 0;
    }
    matched += cost;
    overrides.push(exact[index] ?? patternOverrideFor(namespace, request.identifier));
  }
  return overrides;
}

/**
 * Checks the requests all-or-nothing (a rejected call consumes nothing, in any namespace) and
 * records one event for the call, holding every request's decision: spooled before the answer,
 * written to PostgreSQL off the request path. Its `passed` says whether the call was let through.
 */
export async function applyLimits(
  ctx: LimitingContext,
  requests: readonly RatelimitRequestInput[],
): Promise<{ passed: boolean; limits: LimitDecision[] }> {
  const started = performance.now();
  const { services, rootKey } = ctx;
  // Each step awaits only when it has to read the database: on the hot path everything is cached.
  const found = cachedNamespaces(
    ctx,
    requests.map((request) => request.namespace),
  );
  const resolving = resolveRequests(ctx, requests, found instanceof Promise ? await found : found);
  const resolvedRequests = resolving instanceof Promise ? await resolving : resolving;
  const finding = overridesFor(ctx, resolvedRequests);
  const overrides = finding instanceof Promise ? await finding : finding;
  const checks = resolvedRequests.map(({ request, namespace }, index) => ({
    request,
    namespaceId: namespace.id,
    plan: planRatelimitCheck(
      { limit: request.limit, durationMs: request.duration, cost: request.cost },
      overrides[index],
    ),
  }));
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
  services.outcomes.ratelimitDecisions.add(checked.passed ? 'passed' : 'refused');
  const latencyMs = performance.now() - started;
  const time = services.now();
  const limits = checks.map(({ request, plan }, index): LimitDecision => {
    const outcome = outcomes[index] ?? { passed: false, remaining: 0, reset: time };
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
  if (!ctx.metricsDisabled) {
    // One event for the call, each decision in it: the spool line, the row and its totals are one per call.
    const decisions = checks.map(({ namespaceId, plan }, index): RatelimitDecision => {
      const { identifier, remaining } = limits[index] as LimitDecision;
      return { namespaceId, identifier, limit: plan.limit, remaining, overrideId: plan.overrideId ?? null };
    });
    // The event reaches the spool before the answer is written, so a crash cannot lose it.
    await services.ratelimitEvents.record({
      ...(decisions[0] as RatelimitDecision),
      time,
      requestId: ctx.requestId,
      workspaceId: rootKey.workspaceId,
      // Within a rejected call every decision says false: nothing was counted.
      passed: checked.passed,
      latencyMs,
      ...(decisions.length > 1 ? { further: decisions.slice(1) } : {}),
    });
  }
  return { passed: checked.passed, limits };
}
