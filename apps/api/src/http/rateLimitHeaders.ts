import type { WorkspaceRateLimitState } from '@keyplane/core';

/** The reference's headers for the workspace API rate limit; `Retry-After` only once it is exceeded. */
export function workspaceRateLimitHeaders(state: WorkspaceRateLimitState): Record<string, string> {
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.resetSeconds),
  };
  if (state.exceeded) headers['Retry-After'] = String(state.retryAfterSeconds);
  return headers;
}
