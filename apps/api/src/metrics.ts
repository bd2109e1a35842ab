import { type FreshnessCache, type Tally, VERIFICATION_CODES } from '@keyplane/core';
import { type Orm, ormPoolUsage, type PoolUsage } from '@keyplane/db';
import type { Services } from '@keyplane/procedures';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { PUBLIC_PROCEDURES } from './http/procedureTable.ts';
import type { RequestLine } from './log.ts';
import { RequestMetrics } from './requestMetrics.ts';
import type { NodeCounts } from './services.ts';

/** First path segments outside `/v2` that are counted by name; any other path is `other`. */
const NAMED_ROUTES = new Set(['trpc', 'dashboard', 'openapi.json', 'openapi.yaml', 'docs', 'metrics']);

export interface NodeMetrics {
  /** The Prometheus text content type of `exposition`. */
  readonly contentType: string;
  /** One answered request (called for every request, so it stays cheap). */
  observeRequest(line: RequestLine): void;
  /** Every metric in the Prometheus text format, read now. */
  exposition(): Promise<string>;
}

/** A counter whose value is kept elsewhere (a plain number the hot path increments) and read at scrape. */
function countedElsewhere(counter: Counter<string>, read: () => Iterable<[Record<string, string>, number]>) {
  counter.reset();
  for (const [labels, value] of read()) counter.inc(labels, value);
}

/**
 * This node's Prometheus metrics (docs/operations.md, Metrics). Labels come only from bounded sets
 * (procedure names, status codes, outcome codes, cache and pool names): never a key, an identifier
 * or anything else a caller chose. Every value is read when scraped from counters the node keeps
 * anyway (the requests' in RequestMetrics), so the hot path pays no metrics library.
 */
export function createMetrics(options: { orm: Orm; services: Services; counts: NodeCounts }): NodeMetrics {
  const { orm, services, counts } = options;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new RequestMetrics();
  // A request to any other name under /v2 is counted as `unknown`: names are the caller's choice.
  const knownV2Names = new Set([...PUBLIC_PROCEDURES.keys(), 'liveness', 'readiness']);
  const routeOf = (path: string): string => {
    if (path.startsWith('/v2/')) {
      const name = path.slice('/v2/'.length);
      return knownV2Names.has(name) ? name : 'unknown';
    }
    const first = path.split('/', 2)[1] ?? '';
    return NAMED_ROUTES.has(first) ? first : 'other';
  };

  new Counter({
    name: 'keyplane_verifications_total',
    help: 'Key verifications answered by this node, by outcome code (VALID, NOT_FOUND, RATE_LIMITED, ...).',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      countedElsewhere(this, () => tallied(services.outcomes.verifications, 'outcome', VERIFICATION_CODES));
    },
  });
  new Counter({
    name: 'keyplane_ratelimit_decisions_total',
    help: 'ratelimit.limit and ratelimit.multiLimit calls by decision (passed or refused).',
    labelNames: ['decision'],
    registers: [registry],
    collect() {
      countedElsewhere(this, () => tallied(services.outcomes.ratelimitDecisions, 'decision', ['passed', 'refused']));
    },
  });
  new Counter({
    name: 'keyplane_ratelimit_fallbacks_total',
    help: 'Rate-limit checks answered without Redis because it was unreachable (RATELIMIT_REDIS_FAILURE).',
    registers: [registry],
    collect() {
      countedElsewhere(this, () => [[{}, counts.rateLimitFallbacks]]);
    },
  });
  // Absent without Redis: a gauge with no labels would otherwise read 0, as if Redis were down.
  if (services.rateLimiter.connection !== 'in-process') {
    new Gauge({
      name: 'keyplane_redis_connected',
      help: '1 while the rate limiter counts across nodes in Redis; 0 while Redis is unreachable.',
      registers: [registry],
      collect() {
        this.set(services.rateLimiter.connection === 'ready' ? 1 : 0);
      },
    });
  }

  const caches: Record<string, FreshnessCache<unknown>> = {
    keys: services.keyCache,
    root_keys: services.rootKeyCache,
    ratelimit_namespaces: services.namespaceCache,
    ratelimit_overrides: services.overrideCache,
  };
  new Counter({
    name: 'keyplane_cache_lookups_total',
    help: 'Lookups of the in-process caches, by cache and result (hit, or miss: read from PostgreSQL).',
    labelNames: ['cache', 'result'],
    registers: [registry],
    collect() {
      countedElsewhere(this, () =>
        Object.entries(caches).flatMap(([cache, { counts: cached }]): [Record<string, string>, number][] => [
          [{ cache, result: 'hit' }, cached.hits],
          [{ cache, result: 'miss' }, cached.misses],
        ]),
      );
    },
  });
  new Counter({
    name: 'keyplane_cache_invalidations_total',
    help: 'Entries (or whole caches) forgotten because a change was announced, by cache.',
    labelNames: ['cache'],
    registers: [registry],
    collect() {
      countedElsewhere(this, () =>
        Object.entries(caches).map(([cache, cached]) => [{ cache }, cached.counts.invalidations]),
      );
    },
  });
  new Gauge({
    name: 'keyplane_cache_entries',
    help: 'Entries held by each in-process cache.',
    labelNames: ['cache'],
    registers: [registry],
    collect() {
      for (const [cache, cached] of Object.entries(caches)) this.set({ cache }, cached.size);
    },
  });

  const recorders = { verifications: services.verifications, ratelimits: services.ratelimitEvents };
  new Gauge({
    name: 'keyplane_events_buffered',
    help: 'Analytics events spooled and waiting to be written to PostgreSQL, by stream.',
    labelNames: ['stream'],
    registers: [registry],
    collect() {
      for (const [stream, recorder] of Object.entries(recorders)) this.set({ stream }, recorder.buffered);
    },
  });
  new Counter({
    name: 'keyplane_events_dropped_total',
    help:
      'Analytics events dropped, by stream and reason: refused (the database rejected its values; lost) or ' +
      'evicted (let go from memory during a database outage; the spool still writes them).',
    labelNames: ['stream', 'reason'],
    registers: [registry],
    collect() {
      countedElsewhere(this, () =>
        Object.entries(recorders).flatMap(([stream, recorder]): [Record<string, string>, number][] => [
          [{ stream, reason: 'refused' }, counts.refusedEvents[stream as keyof typeof recorders]],
          [{ stream, reason: 'evicted' }, recorder.evicted],
        ]),
      );
    },
  });

  new Counter({
    name: 'keyplane_invalidations_total',
    help:
      'Cache invalidations: sent (changes this node announced), acknowledged (by every node before its call ' +
      'answered), received (announcements this node heard, its own included).',
    labelNames: ['event'],
    registers: [registry],
    collect() {
      countedElsewhere(this, () => [
        [{ event: 'sent' }, counts.invalidationsSent],
        [{ event: 'acknowledged' }, counts.invalidationsAcknowledged],
        [{ event: 'received' }, counts.invalidationsReceived],
      ]);
    },
  });

  const pools: Record<string, () => Promise<PoolUsage> | PoolUsage> = {
    main: () => ormPoolUsage(orm),
    credits: () => services.credits.poolUsage(),
    analytics: () => services.analytics.poolUsage(),
  };
  new Gauge({
    name: 'keyplane_db_pool_connections',
    help: "PostgreSQL connections of each of this node's pools, by state (busy, idle, waiting for one, max).",
    labelNames: ['pool', 'state'],
    registers: [registry],
    async collect() {
      for (const [pool, read] of Object.entries(pools)) {
        const { open, idle, waiting, max } = await read();
        this.set({ pool, state: 'busy' }, open - idle);
        this.set({ pool, state: 'idle' }, idle);
        this.set({ pool, state: 'waiting' }, waiting);
        this.set({ pool, state: 'max' }, max);
      }
    },
  });

  return {
    contentType: registry.contentType,
    observeRequest(line) {
      const { procedure } = line;
      const route = procedure === undefined ? routeOf(line.path) : knownV2Names.has(procedure) ? procedure : 'unknown';
      requests.observe(route, line.status, line.durationMs / 1000);
    },
    async exposition() {
      return `${await registry.metrics()}\n${requests.render()}`;
    },
  };
}

/** A tally's counts, with every expected label present (at 0) so that rates start from the first scrape. */
function tallied(tally: Tally, labelName: string, expected: readonly string[]): [Record<string, string>, number][] {
  const counted = new Map(tally.entries());
  const labels = new Set([...expected, ...counted.keys()]);
  return [...labels].map((label) => [{ [labelName]: label }, counted.get(label) ?? 0]);
}
