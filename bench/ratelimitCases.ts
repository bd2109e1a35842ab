// The rate-limit cases of `npm run bench` and `npm run bench:pipeline`.

/** One procedure called with one body over and over. */
export interface BenchCase {
  name: string;
  procedure: string;
  body: unknown;
}

/** Far above what any run sends, so every check passes and counts. */
const NEVER_EXHAUSTED = { limit: 1_000_000_000, duration: 60_000 };

export const RATELIMIT_CASES: BenchCase[] = [
  {
    name: 'ratelimit.limit: one limit',
    procedure: 'ratelimit.limit',
    body: { namespace: 'bench.requests', identifier: 'customer_1', ...NEVER_EXHAUSTED },
  },
  {
    name: 'ratelimit.multiLimit: three limits',
    procedure: 'ratelimit.multiLimit',
    body: ['bench.requests', 'bench.tokens', 'bench.writes'].map((namespace) => ({
      namespace,
      identifier: 'customer_1',
      ...NEVER_EXHAUSTED,
    })),
  },
];
