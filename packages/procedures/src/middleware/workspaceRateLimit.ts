import { secondsUntil, type WorkspaceRateLimitState, workspaceRateLimited } from '@keyplane/core';
import type { Context } from '../context.ts';

/**
 * Counts the request against its workspace's API rate limit and throws 429 past it. A quota of
 * fixed minute windows shared by every node (counted in this process while Redis cannot answer).
 * Fails open: when the limiter cannot answer at all, the request goes through (as the reference's
 * does) and the failure is reported.
 */
export async function enforceWorkspaceRateLimit(ctx: Context, workspaceId: string, limit: number): Promise<void> {
  const { services } = ctx;
  let state: WorkspaceRateLimitState;
  try {
    const counted = await services.workspaceRateLimit.consume(workspaceId, limit);
    const resetSeconds = secondsUntil(counted.resetMs, 0);
    state = {
      limit,
      remaining: counted.remaining,
      resetSeconds,
      exceeded: !counted.passed,
      retryAfterSeconds: resetSeconds,
    };
  } catch (error) {
    services.reportError(
      'the workspace API rate limit could not be checked; the request was let through',
      error,
      ctx.requestId,
    );
    return;
  }
  ctx.onWorkspaceRateLimit?.(state);
  if (state.exceeded) throw workspaceRateLimited(state);
}
