/** Seconds; a verification served from memory takes well under a millisecond. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const REQUESTS = 'keyplane_http_requests_total';
const DURATION = 'keyplane_http_request_duration_seconds';

interface Series {
  /** Requests at or below each bucket's bound, not yet cumulated; the last slot is above every bound. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * The request counter and latency histogram by route and status, kept in plain numbers and written
 * out in Prometheus text when scraped. prom-client's own counter and histogram hash their labels on
 * every observation; here a request costs two map lookups and a bucket search
 * (docs/decisions/0004-hand-rendered-request-metrics.md). Routes and statuses come from bounded
 * sets (metrics.ts).
 */
export class RequestMetrics {
  readonly #byRoute = new Map<string, Map<number, Series>>();

  observe(route: string, status: number, seconds: number): void {
    let byStatus = this.#byRoute.get(route);
    if (byStatus === undefined) {
      byStatus = new Map();
      this.#byRoute.set(route, byStatus);
    }
    let series = byStatus.get(status);
    if (series === undefined) {
      series = { buckets: new Float64Array(LATENCY_BUCKETS.length + 1), sum: 0, count: 0 };
      byStatus.set(status, series);
    }
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[bucket] as number)) bucket++;
    series.buckets[bucket] = (series.buckets[bucket] as number) + 1;
    series.sum += seconds;
    series.count++;
  }

  /** Both families in the Prometheus text format (version 0.0.4), each line ending in a newline. */
  render(): string {
    const counts = [
      `# HELP ${REQUESTS} Requests answered, by route (the /v2 procedure, or the first path segment) and status.`,
      `# TYPE ${REQUESTS} counter`,
    ];
    const durations = [
      `# HELP ${DURATION} Time from a request being read to its answer being written, by route and status.`,
      `# TYPE ${DURATION} histogram`,
    ];
    for (const [route, byStatus] of this.#byRoute) {
      for (const [status, { buckets, sum, count }] of byStatus) {
        const labels = `route="${route}",status="${status}"`;
        counts.push(`${REQUESTS}{${labels}} ${count}`);
        let cumulated = 0;
        for (const [index, bound] of LATENCY_BUCKETS.entries()) {
          cumulated += buckets[index] as number;
          durations.push(`${DURATION}_bucket{le="${bound}",${labels}} ${cumulated}`);
        }
        durations.push(`${DURATION}_bucket{le="+Inf",${labels}} ${count}`);
        durations.push(`${DURATION}_sum{${labels}} ${sum}`);
        durations.push(`${DURATION}_count{${labels}} ${count}`);
      }
    }
    return `${counts.join('\n')}\n\n${durations.join('\n')}\n`;
  }
}
