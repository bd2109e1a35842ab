import type { MaybePromise } from '../cache.ts';
import { preconditionFailed } from '../errors.ts';
import { keyStandingFailure } from '../keyStatus.ts';
import { evaluatePermissionQuery, parsePermissionQuery } from './permissionQuery.ts';
import { latestRefillBoundary, type RefillConfig } from './refill.ts';

export interface RatelimitConfig {
  id: string;
  name: string;
  limit: number;
  durationMs: number;
  autoApply: boolean;
}

/** The identity a key belongs to, with the limits all of its keys share. */
export interface KeyIdentity {
  id: string;
  externalId: string;
  meta: Record<string, unknown> | null;
  ratelimits: RatelimitConfig[];
}

/** What verification knows about a live key (credits balance excepted: it is spent atomically). */
export interface VerificationKey {
  id: string;
  workspaceId: string;
  apiId: string;
  name: string | null;
  meta: Record<string, unknown> | null;
  expires: number | null;
  enabled: boolean;
  limitedCredits: boolean;
  refill: RefillConfig | null;
  identity: KeyIdentity | null;
  /** Key-level limits. */
  ratelimits: RatelimitConfig[];
  /** Direct and role-derived permission slugs. */
  permissions: string[];
  roles: string[];
}

/** Every answer a verification can give (the public contract's `code`). */
export const VERIFICATION_CODES = [
  'VALID',
  'NOT_FOUND',
  'FORBIDDEN',
  'INSUFFICIENT_PERMISSIONS',
  'USAGE_EXCEEDED',
  'RATE_LIMITED',
  'DISABLED',
  'EXPIRED',
] as const;

export type VerificationCode = (typeof VERIFICATION_CODES)[number];

export interface RequestedRatelimit {
  name: string;
  cost: number;
  /** With `duration`, an ad-hoc limit rather than a configured one. */
  limit?: number;
  duration?: number;
}

export interface VerifyRequest {
  hash: string;
  permissions?: string;
  creditCost?: number;
  ratelimits?: RequestedRatelimit[];
}

export interface LimitCheck {
  key: string;
  limit: number;
  durationMs: number;
  cost: number;
}

export interface LimitOutcome {
  passed: boolean;
  remaining: number;
  reset: number;
}

/**
 * The outside world verification needs, injected so the rules here stay pure and testable. Built
 * once, not per verification: what belongs to one call (its caller, its connection) comes as
 * `call`, which verification hands to every port as it got it.
 */
export interface VerifyPorts<TCall> {
  /** The key with this hash (null: none); a cached one at once, not as a promise. */
  findKey(call: TCall, hash: string): MaybePromise<VerificationKey | null>;
  /** Throws when the caller may not verify keys of this API. */
  authorize(call: TCall, apiId: string): void;
  checkLimits(
    call: TCall,
    checks: LimitCheck[],
    hashTag: string,
  ): Promise<{ passed: boolean; results: LimitOutcome[] }>;
  spendCredits(
    call: TCall,
    keyId: string,
    cost: number,
    refillBoundary: number,
  ): Promise<{ available: number | null; remaining: number | null }>;
  /**
   * A limited key's balance for an outcome that spends nothing (a due refill applied), judged in
   * order with the key's concurrent spends; undefined when it cannot be read: the outcome stands.
   */
  readCredits(call: TCall, keyId: string, refillBoundary: number): Promise<number | undefined>;
  now(call: TCall): number;
}

export interface CheckedRatelimit {
  id: string;
  name: string;
  limit: number;
  duration: number;
  autoApply: boolean;
  exceeded: boolean;
  remaining: number;
  reset: number;
}

export type VerifyOutcome =
  | { code: 'NOT_FOUND'; key?: undefined }
  | {
      code: VerificationCode;
      key: VerificationKey;
      /** The balance after this verification (a failed one spends nothing), when the key has limited credits. */
      credits?: number;
      spentCredits: number;
      ratelimits?: CheckedRatelimit[];
    };

interface PlannedLimit {
  config: RatelimitConfig;
  owner: string;
  cost: number;
}

/**
 * Verifies a key in the reference order: lookup (deleted, deleted API, other workspace), the
 * caller's permission, disabled, expired, permissions query, rate limits, credits.
 */
export async function verifyKey<TCall>(
  request: VerifyRequest,
  workspaceId: string,
  ports: VerifyPorts<TCall>,
  call: TCall,
): Promise<VerifyOutcome> {
  const lookedUp = ports.findKey(call, request.hash);
  const key = lookedUp instanceof Promise ? await lookedUp : lookedUp;
  if (!key || key.workspaceId !== workspaceId) return { code: 'NOT_FOUND' };
  ports.authorize(call, key.apiId);
  const query = request.permissions === undefined ? undefined : parsePermissionQuery(request.permissions);
  const found = (code: VerificationCode, extra: Partial<Extract<VerifyOutcome, { key: VerificationKey }>> = {}) => ({
    code,
    key,
    spentCredits: 0,
    ...extra,
  });

  const now = ports.now(call);
  const refillBoundary = key.refill ? latestRefillBoundary(key.refill, now) : 0;
  // A failed outcome spends nothing but still shows a limited key's balance (not cached: read).
  const failed = async (code: VerificationCode, ratelimits?: CheckedRatelimit[]) => {
    if (!key.limitedCredits) return found(code, { ratelimits });
    const credits = await ports.readCredits(call, key.id, refillBoundary);
    return found(code, credits === undefined ? { ratelimits } : { ratelimits, credits });
  };

  const standing = keyStandingFailure(key, now);
  if (standing) return failed(standing);
  if (query && !evaluatePermissionQuery(query, key.permissions)) return failed('INSUFFICIENT_PERMISSIONS');

  const planned = planRatelimits(key, request.ratelimits ?? []);
  let ratelimits: CheckedRatelimit[] | undefined;
  if (planned.length > 0) {
    const checks = planned.map(({ config, owner, cost }) => ({
      key: `${workspaceId}:${owner}:${config.name}:${config.durationMs}`,
      limit: config.limit,
      durationMs: config.durationMs,
      cost,
    }));
    const checked = await ports.checkLimits(call, checks, workspaceId);
    ratelimits = planned.map(({ config }, index) => {
      const result = checked.results[index] ?? { passed: false, remaining: 0, reset: now };
      return {
        id: config.id,
        name: config.name,
        limit: config.limit,
        duration: config.durationMs,
        autoApply: config.autoApply,
        exceeded: !result.passed,
        remaining: result.remaining,
        reset: result.reset,
      };
    });
    if (!checked.passed) return failed('RATE_LIMITED', ratelimits);
  }

  if (!key.limitedCredits) return found('VALID', { ratelimits });
  const cost = request.creditCost ?? 1;
  const spend = await ports.spendCredits(call, key.id, cost, refillBoundary);
  if (spend.available === null) return found('VALID', { ratelimits });
  if (spend.remaining === null) return found('USAGE_EXCEEDED', { ratelimits, credits: spend.available });
  return found('VALID', { ratelimits, credits: spend.remaining, spentCredits: cost });
}

/** The identity's limits that apply to the key: a key limit of the same name hides the identity's. */
export function identityRatelimitsOf(key: VerificationKey): RatelimitConfig[] {
  const identityLimits = key.identity?.ratelimits ?? [];
  // Most keys have no identity limits, or no limits of their own to hide them: nothing to build.
  if (identityLimits.length === 0 || key.ratelimits.length === 0) return identityLimits;
  return identityLimits.filter((identityLimit) => !key.ratelimits.some((limit) => limit.name === identityLimit.name));
}

/**
 * The auto-applied limits of the key and its identity (a key limit hides an identity limit of the
 * same name), with requested limits replacing auto-applied ones of the same name.
 */
function planRatelimits(key: VerificationKey, requested: RequestedRatelimit[]): PlannedLimit[] {
  const identityLimits = identityRatelimitsOf(key);
  // Most verifications: no limit on the key or its identity, none asked for.
  if (identityLimits.length === 0 && key.ratelimits.length === 0 && requested.length === 0) return [];
  const keyLimit = (name: string) => key.ratelimits.find((limit) => limit.name === name);
  const identityLimit = (name: string) => identityLimits.find((limit) => limit.name === name);
  const planned = new Map<string, PlannedLimit>();
  for (const limit of identityLimits) {
    if (limit.autoApply) planned.set(limit.name, { config: limit, owner: `identity:${key.identity?.id}`, cost: 1 });
  }
  for (const limit of key.ratelimits) {
    if (limit.autoApply) planned.set(limit.name, { config: limit, owner: `key:${key.id}`, cost: 1 });
  }
  for (const wanted of requested) {
    if (wanted.limit !== undefined && wanted.duration !== undefined) {
      const config = { id: '', name: wanted.name, limit: wanted.limit, durationMs: wanted.duration, autoApply: false };
      // Counted as the key's own: a key limit of the same name and duration shares the counter.
      planned.set(wanted.name, { config, owner: `key:${key.id}`, cost: wanted.cost });
      continue;
    }
    const onKey = keyLimit(wanted.name);
    const config = onKey ?? identityLimit(wanted.name);
    if (!config) throw preconditionFailed(unknownRatelimitDetail(wanted.name, key));
    const owner = onKey ? `key:${key.id}` : `identity:${key.identity?.id}`;
    planned.set(wanted.name, { config, owner, cost: wanted.cost });
  }
  return [...planned.values()];
}

/** The reference's wording, word for word (docs/contract.md#rate-limits-on-keys): clients may match on it. */
function unknownRatelimitDetail(name: string, key: VerificationKey): string {
  const missing = `ratelimit '${name}' was requested but does not exist for key '${key.id}'`;
  return key.identity
    ? `${missing} nor identity: '${key.identity.id}' external ID: '${key.identity.externalId}'`
    : `${missing} and there is no identity connected.`;
}
