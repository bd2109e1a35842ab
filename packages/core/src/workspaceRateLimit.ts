import { DomainError } from './errors.ts';
import type { CounterCheck } from './namespaceRatelimits.ts';

const MINUTE_MS = 60_000;

/** The workspace API rate limit as one request left it: what the RateLimit-* headers show. */
export interface WorkspaceRateLimitState {
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets, at least 1 (`RateLimit-Reset`). */
  resetSeconds: number;
  exceeded: boolean;
  /**
   * Whole seconds until a request could pass again, at least 1 (`Retry-After` past the limit): the
   * window is sliding, so that is often well before its reset, and sometimes after it.
   */
  retryAfterSeconds: number;
}

/** The counter each API request of a workspace spends, shared by every node through the rate-limit engine. */
export function workspaceRateLimitCheck(workspaceId: string, requestsPerMinute: number): CounterCheck {
  return { key: `${workspaceId}:api:requests:${MINUTE_MS}`, limit: requestsPerMinute, durationMs: MINUTE_MS, cost: 1 };
}

/** Whole seconds from `now` until `reset` (unix ms), never less than 1. */
export function secondsUntil(reset: number, now: number): number {
  return Math.max(1, Math.ceil((reset - now) / 1000));
}

export function workspaceRateLimited(state: WorkspaceRateLimitState): DomainError {
  const allowance =
    state.limit === 0
      ? 'This workspace may make no API requests (its rate limit is 0 per minute).'
      : `This workspace may make ${state.limit} API requests per minute and has made them.`;
  return new DomainError(
    429,
    'user/too_many_requests/workspace_rate_limited',
    `${allowance} Try again in ${state.retryAfterSeconds} s.`,
  );
}
