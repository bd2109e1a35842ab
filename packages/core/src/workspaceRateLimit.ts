import { DomainError } from './errors.ts';

/** The workspace API rate limit as one request left it: what the RateLimit-* headers show. */
export interface WorkspaceRateLimitState {
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets, at least 1 (`RateLimit-Reset`). */
  resetSeconds: number;
  exceeded: boolean;
  /** Whole seconds until a request could pass again, at least 1 (`Retry-After` past the limit). */
  retryAfterSeconds: number;
}

/** The workspace API rate limit's window, in seconds: a limit is requests per minute. */
export const WORKSPACE_RATE_LIMIT_WINDOW_SECONDS = 60;

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
