import {
  secondsUntil,
  type WorkspaceRateLimitState,
  workspaceRateLimitCheck,
  workspaceRateLimited,
} from '@keyplane/core';
import type { Context } from '../context.ts';

/**
 * Counts the request against its workspace's API rate limit and throws 429 past it. Fails open:
 * when the limiter cannot answer, the request goes through (as the reference's does) and the
 * failure is reported.
 */
export async function enforceWorkspaceRateLimit(ctx: Context, workspaceId: string, limit: number): Promise<void> {
  const { services } = ctx;
  let state: WorkspaceRateLimitState;
  try {
    const { passed, results } = await services.rateLimiter.check([workspaceRateLimitCheck(workspaceId, limit)], {
      hashTag: workspaceId,
    });
    const [result] = results;
    if (!result) return;
    // The engine's window runs on the wall clock (Redis time), not on the services' clock.
    const now = Date.now();
    state = {
      limit,
      remaining: result.remaining,
      resetSeconds: secondsUntil(result.reset, now),
      exceeded: !passed,
      // The engine gives retryAfter for a refused request only: a passing one could pass at once.
      retryAfterSeconds: secondsUntil(now + (result.retryAfter ?? 0), now),
    };
  } catch (error) {
    services.reportError('the workspace API rate limit could not be checked; the request was let through', error);
    return;
  }
  ctx.onWorkspaceRateLimit?.(state);
  if (state.exceeded) throw workspaceRateLimited(state);
}
