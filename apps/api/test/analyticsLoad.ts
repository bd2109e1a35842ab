// A worker thread of the latency tests (verificationLatency.ts): keeps analytics queries in flight
// from an event loop of its own, so that handling their answers never delays the verifications the
// test times.
import { parentPort, workerData } from 'node:worker_threads';

export interface AnalyticsLoadPlan {
  url: string;
  rootKeys: string[];
  /** Queries each root key keeps in flight, one after another. */
  queriesPerKey: number;
  /** What they send: the n-th of a key's loops sends the n-th of these (going round). */
  queries: string[];
  procedure?: 'analytics.getVerifications' | 'analytics.getRatelimits';
  /** An answer later than this is unexpected: the bound the run time and its grace set. */
  maxAnswerMs?: number;
}

const {
  url,
  rootKeys,
  queriesPerKey,
  queries,
  procedure = 'analytics.getVerifications',
  maxAnswerMs = Number.POSITIVE_INFINITY,
} = workerData as AnalyticsLoadPlan;
let stopping = false;
parentPort?.once('message', () => {
  stopping = true;
});

/**
 * Answers other than the ones a query of the load may get: out of time or too much memory (422),
 * no connection free in time or too many queries of its workspace at once (429); and answers that
 * came later than the bound. An answer to a query cancelled by `stop` may come at any time.
 */
const unexpected: unknown[] = [];
await Promise.all(
  rootKeys.flatMap((rootKey) =>
    Array.from({ length: queriesPerKey }, async (_, loop) => {
      const query = queries[loop % queries.length];
      while (!stopping) {
        try {
          const started = performance.now();
          const response = await fetch(`${url}/v2/${procedure}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
            body: JSON.stringify({ query }),
          });
          const body = await response.text();
          const answeredInMs = performance.now() - started;
          if (response.status !== 422 && response.status !== 429) unexpected.push({ status: response.status, body });
          else if (answeredInMs > maxAnswerMs && !stopping) unexpected.push({ answeredInMs, maxAnswerMs, body });
        } catch (error) {
          unexpected.push(String(error));
        }
      }
    }),
  ),
);
parentPort?.postMessage(unexpected);
