import { DomainError } from './errors.ts';

/** Analytics queries one workspace may have under way at once on one node, by default. */
export const DEFAULT_ANALYTICS_CONCURRENT_QUERIES = 2;

/**
 * Bounds the analytics queries each workspace has under way at once in this process, so that one
 * workspace cannot hold every analytics connection of a node. Counted per process rather than
 * across nodes: the connections it shares out belong to the process, and a slot cannot outlive the
 * process that holds it, so a crash never leaves a workspace refused.
 */
export class AnalyticsConcurrency {
  readonly maxPerWorkspace: number;
  readonly #running = new Map<string, number>();

  constructor(maxPerWorkspace: number) {
    this.maxPerWorkspace = maxPerWorkspace;
  }

  /** Runs `query` in one of the workspace's slots; with none free, 429 query_concurrency_exceeded. */
  async run<T>(workspaceId: string, query: () => Promise<T>): Promise<T> {
    const running = this.#running.get(workspaceId) ?? 0;
    if (running >= this.maxPerWorkspace) throw analyticsConcurrencyExceeded(this.maxPerWorkspace);
    this.#running.set(workspaceId, running + 1);
    try {
      return await query();
    } finally {
      const left = (this.#running.get(workspaceId) ?? 1) - 1;
      if (left === 0) this.#running.delete(workspaceId);
      else this.#running.set(workspaceId, left);
    }
  }
}

export function analyticsConcurrencyExceeded(maxPerWorkspace: number): DomainError {
  return new DomainError(
    429,
    'user/too_many_requests/query_concurrency_exceeded',
    `This workspace already has ${maxPerWorkspace} analytics ${maxPerWorkspace === 1 ? 'query' : 'queries'} running, as many as it may run at once. Retry when one has finished.`,
  );
}
