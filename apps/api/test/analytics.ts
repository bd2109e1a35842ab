import type { Api } from './harness.ts';

export type AnalyticsRow = Record<string, unknown>;

/** The rows an analytics procedure answers for a query, failing the test on anything but 200. */
export async function analyticsRows(
  api: Api,
  procedure: 'analytics.getVerifications' | 'analytics.getRatelimits',
  query: string,
  rootKey: string,
): Promise<AnalyticsRow[]> {
  const reply = await api.post<AnalyticsRow[]>(procedure, { query }, rootKey);
  if (reply.status !== 200) throw new Error(`${query}: ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** Runs `test` with the hourly analytics quota lowered to `queriesPerHour`, then restores it. */
export async function withAnalyticsQuota(api: Api, queriesPerHour: number, test: () => Promise<void>): Promise<void> {
  const configured = api.services.analyticsQueriesPerHour;
  api.services.analyticsQueriesPerHour = queriesPerHour;
  try {
    await test();
  } finally {
    api.services.analyticsQueriesPerHour = configured;
  }
}
