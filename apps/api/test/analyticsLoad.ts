// A worker thread of analyticsIsolation.test.ts: keeps analytics queries in flight from an event
// loop of its own, so that handling their answers never delays the verifications the test times.
import { parentPort, workerData } from 'node:worker_threads';

export interface AnalyticsLoadPlan {
  url: string;
  rootKeys: string[];
  queriesPerKey: number;
  query: string;
}

const { url, rootKeys, queriesPerKey, query } = workerData as AnalyticsLoadPlan;
let stopping = false;
parentPort?.once('message', () => {
  stopping = true;
});

/** Answers other than the two a query of the load may get: out of time (422), no connection free in time (429). */
const unexpected: unknown[] = [];
await Promise.all(
  rootKeys.flatMap((rootKey) =>
    Array.from({ length: queriesPerKey }, async () => {
      while (!stopping) {
        try {
          const response = await fetch(`${url}/v2/analytics.getVerifications`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
            body: JSON.stringify({ query }),
          });
          const body = await response.text();
          if (response.status !== 422 && response.status !== 429) unexpected.push({ status: response.status, body });
        } catch (error) {
          unexpected.push(String(error));
        }
      }
    }),
  ),
);
parentPort?.postMessage(unexpected);
