import { DomainError } from './errors.ts';

/** Analytics queries one workspace may have running at once on one node, by default. */
export const DEFAULT_ANALYTICS_CONCURRENT_QUERIES = 2;

/**
 * Analytics queries of one workspace that may wait at once on one node for one of its running ones
 * to end; more are refused at once. Waiting costs the node nothing, where refusals sent straight
 * back would let a workspace sending many at once keep it busy answering them.
 */
export const ANALYTICS_WAITING_QUERIES = 100;

/**
 * 429 query_concurrency_exceeded: the workspace's own queries held all its slots for as long as this
 * one could wait (`waitedMs`), or as many of its queries as may wait are waiting (undefined).
 */
export function analyticsConcurrencyExceeded(maxPerWorkspace: number, waitedMs: number | undefined): DomainError {
  const running = `This workspace already has ${maxPerWorkspace} analytics ${maxPerWorkspace === 1 ? 'query' : 'queries'} running, as many as it may run at once`;
  return new DomainError(
    429,
    'user/too_many_requests/query_concurrency_exceeded',
    waitedMs === undefined
      ? `${running}, and ${ANALYTICS_WAITING_QUERIES} more waiting. Retry when one has finished.`
      : `${running}, and none of them made way for this one within ${Number((waitedMs / 1000).toFixed(1))} s. Retry when one has finished.`,
  );
}
