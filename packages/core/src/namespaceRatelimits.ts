/** The `ratelimit.*` rules that need no I/O: override matching, and what the checks of one call ask of the engine. */

import type { MaybePromise } from './cache.ts';

/** A live override as the limiter sees it. */
export interface RatelimitOverrideRule {
  id: string;
  /** Exact, or a pattern in which `*` stands for any sequence of characters (also none). */
  identifier: string;
  /** 0 blocks every request. */
  limit: number;
  durationMs: number;
}

export const WILDCARD = '*';

/** What limiting knows of a namespace: what nodes cache, by the id or the name a request named it by. */
export interface RatelimitNamespaceSnapshot {
  workspaceId: string;
  id: string;
  name: string;
  /** Limiting on a deleted namespace answers 410. */
  deleted: boolean;
  /** The live overrides whose identifier is a `*` pattern. */
  patternOverrides: RatelimitOverrideRule[];
  /** How many live overrides name an identifier exactly: with none, no identifier needs a lookup. */
  exactOverrides: number;
}

export function isWildcardPattern(identifier: string): boolean {
  return identifier.includes(WILDCARD);
}

/**
 * Whether `identifier` matches `pattern` as a whole (anchored at both ends), case-sensitively,
 * `*` matching any sequence. Greedy matching that backtracks only to the last `*`: at most
 * pattern × identifier steps, where a regular expression built from a pattern like `*a*a*a*…b`
 * can backtrack exponentially, and patterns are written by API callers.
 */
export function matchesWildcard(pattern: string, identifier: string): boolean {
  let p = 0;
  let i = 0;
  let lastStar = -1;
  let resumeAt = 0;
  while (i < identifier.length) {
    if (p < pattern.length && pattern[p] === WILDCARD) {
      lastStar = p;
      resumeAt = i;
      p += 1;
    } else if (p < pattern.length && pattern[p] === identifier[i]) {
      p += 1;
      i += 1;
    } else if (lastStar >= 0) {
      // Let the last `*` swallow one more character and retry the rest of the pattern after it.
      p = lastStar + 1;
      resumeAt += 1;
      i = resumeAt;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === WILDCARD) p += 1;
  return p === pattern.length;
}

/** How specific a wildcard pattern is: its literal (non-`*`) characters. */
function literalLength(pattern: string): number {
  let count = 0;
  for (const character of pattern) if (character !== WILDCARD) count += 1;
  return count;
}

/**
 * The override that applies to `identifier`, if any: an exact match first; otherwise, of the
 * wildcard patterns that match, the most specific (most literal characters), then the oldest
 * (lowest id: ids sort by creation). The reference product takes "the first" wildcard in an
 * unspecified order; a stable choice means every node and every request picks the same one.
 */
export function selectOverride<TOverride extends RatelimitOverrideRule>(
  overrides: readonly TOverride[],
  identifier: string,
): TOverride | undefined {
  let best: TOverride | undefined;
  let bestLiterals = -1;
  for (const override of overrides) {
    if (override.identifier === identifier) return override;
    if (!isWildcardPattern(override.identifier) || !matchesWildcard(override.identifier, identifier)) continue;
    const literals = literalLength(override.identifier);
    if (literals > bestLiterals || (literals === bestLiterals && best !== undefined && override.id < best.id)) {
      best = override;
      bestLiterals = literals;
    }
  }
  return best;
}

/**
 * The override limiting applies to the identifier (see `selectOverride`): its exact one, looked up
 * only when the namespace has exact ones at all, else the best matching pattern. Answered at once
 * when `findExact` is (a cached override, or none to look up), so the hot path of limiting awaits
 * nothing it already has.
 */
export function findApplicableOverride(
  namespace: RatelimitNamespaceSnapshot,
  identifier: string,
  findExact: (namespaceId: string, identifier: string) => MaybePromise<RatelimitOverrideRule | undefined>,
): MaybePromise<RatelimitOverrideRule | undefined> {
  const byPattern = () => selectOverride(namespace.patternOverrides, identifier);
  if (namespace.exactOverrides === 0) return byPattern();
  const exact = findExact(namespace.id, identifier);
  return exact instanceof Promise ? exact.then((found) => found ?? byPattern()) : (exact ?? byPattern());
}

/** One `ratelimit.limit` check as requested. */
export interface RatelimitCheckRequest {
  limit: number;
  durationMs: number;
  /** 0 checks without consuming. */
  cost: number;
}

/** What the engine is asked, and the override that shaped it. */
export interface PlannedRatelimitCheck {
  limit: number;
  durationMs: number;
  cost: number;
  overrideId: string | undefined;
}

/**
 * An override's limit and duration replace the request's. A limit of 0 blocks: it is checked at a
 * cost of at least 1, so it fails even a cost-0 check (which would otherwise pass, using nothing
 * of nothing) and, failing, makes the engine consume nothing anywhere in the same call.
 */
export function planRatelimitCheck(
  request: RatelimitCheckRequest,
  override: RatelimitOverrideRule | undefined,
): PlannedRatelimitCheck {
  const limit = override?.limit ?? request.limit;
  return {
    limit,
    durationMs: override?.durationMs ?? request.durationMs,
    cost: limit === 0 ? Math.max(request.cost, 1) : request.cost,
    overrideId: override?.id,
  };
}

/**
 * The engine key of one counter: by namespace id (as in the reference), so a namespace named by
 * its id or its name counts once; with the duration, so an override that changes the window
 * starts fresh counts rather than reading a window of another length.
 */
export function ratelimitCounterKey(
  workspaceId: string,
  namespaceId: string,
  identifier: string,
  durationMs: number,
): string {
  return `${workspaceId}:ns:${namespaceId}:${identifier}:${durationMs}`;
}

/** One counter check as the engine takes it. */
export interface CounterCheck {
  key: string;
  limit: number;
  durationMs: number;
  cost: number;
}

/** The engine's answer for one check. */
export interface CounterOutcome {
  passed: boolean;
  remaining: number;
  reset: number;
}

/**
 * Checks of one call that share a counter become one engine check. The engine reads every counter
 * once, before the call, so two checks of one counter would each see room for themselves and
 * together overrun it (`[x, x]` at limit 1 would pass and count 2).
 *
 * Merged, they are judged as if made one after the other: check i of a counter passes when the
 * counter's effective count plus the costs of its checks up to and including i (`prefix_i`)
 * stays within its limit. That holds for every i exactly when `effective + total <= total +
 * min_i(limit_i - prefix_i)`, which is one engine check of the total cost against that limit.
 * `spread` turns the engine's answers back into one per original check, in order: each check's
 * remaining after it when the call passed; when it was refused, 0 for the checks of a counter
 * that refused it and, for the others, what they had before the call (nothing was counted).
 */
export function combineCounterChecks(checks: readonly CounterCheck[]): {
  requests: CounterCheck[];
  spread(outcomes: readonly CounterOutcome[]): CounterOutcome[];
} {
  const groups = new Map<string, { index: number; total: number; slack: number }>();
  const requests: CounterCheck[] = [];
  const members = checks.map((check) => {
    let group = groups.get(check.key);
    if (!group) {
      group = { index: requests.length, total: 0, slack: Number.POSITIVE_INFINITY };
      groups.set(check.key, group);
      requests.push({ ...check });
    }
    group.total += check.cost;
    const headroom = check.limit - group.total;
    group.slack = Math.min(group.slack, headroom);
    return { check, group, headroom };
  });
  for (const group of groups.values()) {
    const request = requests[group.index];
    if (!request) continue;
    request.cost = group.total;
    // Below 0 nothing can pass (total > 0 then, as every limit is >= 0); the engine takes no negative limit.
    request.limit = Math.max(0, group.total + group.slack);
  }
  return {
    requests,
    spread: (outcomes) => {
      // The engine counted the call only if every one of its checks passed.
      const counted = outcomes.every((outcome) => outcome.passed);
      return members.map(({ check, group, headroom }) => {
        const outcome = outcomes[group.index] ?? { passed: false, remaining: 0, reset: 0 };
        if (!outcome.passed) return { passed: false, remaining: 0, reset: outcome.reset };
        const merged = requests[group.index]?.limit ?? 0;
        // The engine's remaining is floor(limit - count), counted or not; the terms added here are
        // integers, so the floor carries over exactly.
        const remaining = counted
          ? outcome.remaining + headroom - (merged - group.total)
          : outcome.remaining + check.limit - merged;
        return { passed: true, remaining, reset: outcome.reset };
      });
    },
  };
}
