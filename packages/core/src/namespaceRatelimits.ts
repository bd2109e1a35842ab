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

/**
 * A wildcard pattern taken apart once, so that matching it is one left-to-right pass over the
 * identifier: the literal text before the first `*` and after the last one, and the literal runs
 * between them, each with its KMP failure table.
 */
export interface CompiledWildcard {
  /** The pattern as written. */
  text: string;
  /** False for a text without `*`, which matches only itself. */
  wildcard: boolean;
  prefix: string;
  suffix: string;
  middle: readonly LiteralRun[];
  /** Characters other than `*`: how specific the pattern is, and the shortest identifier it can match. */
  literalLength: number;
}

interface LiteralRun {
  text: string;
  /** `failure[i]`: the length of the longest proper prefix of `text[0..i]` that is also its suffix. */
  failure: Int32Array;
}

/** A pattern override with its pattern compiled: what a namespace snapshot holds, best first. */
export interface PatternOverride extends RatelimitOverrideRule {
  pattern: CompiledWildcard;
}

/** What limiting knows of a namespace: what nodes cache, by the id or the name a request named it by. */
export interface RatelimitNamespaceSnapshot {
  workspaceId: string;
  id: string;
  name: string;
  /** Limiting on a deleted namespace answers 410. */
  deleted: boolean;
  /**
   * The live overrides whose identifier is a `*` pattern, in the order they take precedence
   * (`compilePatternOverrides`): the first that matches applies.
   */
  patternOverrides: PatternOverride[];
  /** How many live overrides name an identifier exactly: with none, no identifier needs a lookup. */
  exactOverrides: number;
}

export function isWildcardPattern(identifier: string): boolean {
  return identifier.includes(WILDCARD);
}

function failureTable(text: string): Int32Array {
  const failure = new Int32Array(text.length);
  let border = 0;
  for (let index = 1; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    while (border > 0 && code !== text.charCodeAt(border)) border = failure[border - 1] as number;
    if (code === text.charCodeAt(border)) border += 1;
    failure[index] = border;
  }
  return failure;
}

export function compileWildcard(pattern: string): CompiledWildcard {
  const parts = pattern.split(WILDCARD);
  const prefix = parts[0] ?? '';
  if (parts.length === 1) {
    return { text: pattern, wildcard: false, prefix, suffix: '', middle: [], literalLength: pattern.length };
  }
  const suffix = parts[parts.length - 1] ?? '';
  const middle = parts
    .slice(1, -1)
    .filter((run) => run.length > 0)
    .map((run) => ({ text: run, failure: failureTable(run) }));
  return { text: pattern, wildcard: true, prefix, suffix, middle, literalLength: pattern.length - parts.length + 1 };
}

/**
 * Where `run` first occurs wholly within `text[from, end)`, or -1: Knuth-Morris-Pratt, which reads
 * each character of the text once and never steps back.
 */
function findRun(text: string, run: LiteralRun, from: number, end: number): number {
  const length = run.text.length;
  let matched = 0;
  for (let index = from; index < end; index += 1) {
    const code = text.charCodeAt(index);
    while (matched > 0 && code !== run.text.charCodeAt(matched)) matched = run.failure[matched - 1] as number;
    if (code === run.text.charCodeAt(matched)) matched += 1;
    if (matched === length) return index - length + 1;
  }
  return -1;
}

/**
 * Whether the identifier matches the compiled pattern as a whole. The prefix and the suffix are
 * compared in place, then each literal run is found leftmost after the one before it (taking the
 * earliest occurrence never loses a match, as `*` takes up whatever lies between). Each search
 * starts where the last one ended, so the identifier is read once: O(pattern + identifier)
 * (docs/contract.md#limits), where backtracking costs pattern × identifier and a regular
 * expression built from a pattern can cost exponentially more; patterns are written by callers.
 */
export function matchesCompiledWildcard(pattern: CompiledWildcard, identifier: string): boolean {
  if (!pattern.wildcard) return identifier === pattern.text;
  if (identifier.length < pattern.literalLength) return false;
  if (!identifier.startsWith(pattern.prefix) || !identifier.endsWith(pattern.suffix)) return false;
  let from = pattern.prefix.length;
  const end = identifier.length - pattern.suffix.length;
  for (const run of pattern.middle) {
    const at = findRun(identifier, run, from, end);
    if (at < 0) return false;
    from = at + run.text.length;
  }
  return true;
}

/**
 * Whether `identifier` matches `pattern` as a whole (anchored at both ends), case-sensitively,
 * `*` matching any sequence, in one pass (`matchesCompiledWildcard`).
 */
export function matchesWildcard(pattern: string, identifier: string): boolean {
  return matchesCompiledWildcard(compileWildcard(pattern), identifier);
}

/**
 * The pattern overrides compiled, in the order they take precedence: the most specific (most
 * literal characters) first, then the oldest (lowest id: ids sort by creation). The reference
 * product takes "the first" wildcard in an unspecified order; a stable choice means every node and
 * every request picks the same one.
 */
export function compilePatternOverrides<TOverride extends RatelimitOverrideRule>(
  overrides: readonly TOverride[],
): (TOverride & PatternOverride)[] {
  return overrides
    .filter((override) => isWildcardPattern(override.identifier))
    .map((override) => ({ ...override, pattern: compileWildcard(override.identifier) }))
    .sort((a, b) => b.pattern.literalLength - a.pattern.literalLength || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The first pattern override (in precedence order) that matches the identifier. */
function firstMatching<TOverride extends PatternOverride>(
  patterns: readonly TOverride[],
  identifier: string,
): TOverride | undefined {
  for (const override of patterns) if (matchesCompiledWildcard(override.pattern, identifier)) return override;
  return undefined;
}

/** The namespace's pattern override that applies to an identifier without an exact one, if any. */
export function patternOverrideFor(
  namespace: RatelimitNamespaceSnapshot,
  identifier: string,
): PatternOverride | undefined {
  return firstMatching(namespace.patternOverrides, identifier);
}

/**
 * The override that applies to `identifier`, if any: an exact match first; otherwise the matching
 * pattern that takes precedence (`compilePatternOverrides`).
 */
export function selectOverride<TOverride extends RatelimitOverrideRule>(
  overrides: readonly TOverride[],
  identifier: string,
): TOverride | undefined {
  const exact = overrides.find((override) => override.identifier === identifier);
  return exact ?? firstMatching(compilePatternOverrides(overrides), identifier);
}

/**
 * An upper bound on the characters read to match the identifier against every pattern of the
 * namespace: what limiting budgets per turn of the event loop.
 */
export function patternMatchingCost(namespace: RatelimitNamespaceSnapshot, identifier: string): number {
  let cost = 0;
  for (const override of namespace.patternOverrides) cost += identifier.length + override.pattern.literalLength;
  return cost;
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
  const byPattern = () => firstMatching(namespace.patternOverrides, identifier);
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
