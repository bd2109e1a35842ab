import type { QueryFunction, QueryKey, UseQueryOptions } from '@tanstack/react-query';
import { trpc } from './trpc.ts';

/**
 * How many analytics queries the dashboard has under way at once. The server runs only so many of
 * a workspace's at once (ANALYTICS_MAX_CONCURRENT_QUERIES, 2 by default) and refuses the rest with a
 * 429 to retry: a screen of several charts and tables asks for them a couple at a time instead.
 */
const AT_ONCE = 2;

let running = 0;
const waiting: (() => void)[] = [];

/** Runs `work` once fewer than AT_ONCE others run; a finished query hands its turn to the next waiting. */
async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running < AT_ONCE) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

type Rows = Record<string, unknown>[];
type RowsOptions = UseQueryOptions<Rows, Error, Rows, QueryKey>;

function queued(options: RowsOptions): RowsOptions {
  const queryFn = options.queryFn as QueryFunction<Rows, QueryKey>;
  return { ...options, queryFn: (context) => inTurn(async () => queryFn(context)) };
}

/** analytics.getVerifications for `sql`, asked in turn with the screen's other analytics queries. */
export function verificationsQueryOptions(sql: string, extra?: Omit<RowsOptions, 'queryKey' | 'queryFn'>): RowsOptions {
  return queued(trpc.analytics.getVerifications.queryOptions({ query: sql }, extra));
}

/** analytics.getRatelimits for `sql`, asked in turn with the screen's other analytics queries. */
export function ratelimitsQueryOptions(sql: string, extra?: Omit<RowsOptions, 'queryKey' | 'queryFn'>): RowsOptions {
  return queued(trpc.analytics.getRatelimits.queryOptions({ query: sql }, extra));
}
