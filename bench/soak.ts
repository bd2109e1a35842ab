// A mixed workload against several server processes on one PostgreSQL and one Redis, for a given
// time: 90% keys.verifyKey (valid keys of several APIs, some metered by credits or rate limits,
// some unknown) and 10% management and rate limits (createKey, updateKey, getKey, apis.listKeys,
// ratelimit.limit and multiLimit), spread over the nodes in turn. Prints a line per minute
// (throughput, p50, p99, errors, PostgreSQL transactions, and each node's memory and CPU) and a summary;
// exits 1 on any error or if a node's memory grew (see MAX_HEAP_FLOOR_GROWTH_BYTES). docs/scaling.md reads it.
//   DATABASE_URL=postgresql://… REDIS_URL=redis://… SOAK_MINUTES=10 SOAK_NODES=3 npm run soak
// Without DATABASE_URL an embedded PostgreSQL is started in a temporary directory.
//
// What counts as an error: a socket error, a timeout, or any answer but 2xx. Rate limits refusing
// (a key's tight limit, ratelimit.limit past its limit) and keys out of credits or unknown are
// answered 200 with `valid: false` or `success: false`, as the contract has it: the summary counts
// them as outcomes, not errors. No workspace API rate limit is set, so no 429 is expected at all.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadBenchEnv, loadEnv } from '@keyplane/config';
import autocannon from 'autocannon';
import pg from 'pg';
import { createDatabase } from './database.ts';
import { type SpawnedServer, spawnServer } from './server.ts';

const SECONDS_PER_MINUTE = 60;
/** How often each node's memory is read during a minute. */
const SAMPLE_EVERY_SECONDS = 5;
/** A request unanswered this long is a timeout, an error. */
const TIMEOUT_SECONDS = 10;
/**
 * The memory check compares each node's last minute with its minute 2, once the JIT, the caches (a
 * few thousand entries here) and the pools have warmed up. A leak shows first in the heap that
 * survives garbage collection: the lowest heap used of a minute may grow by at most this much.
 * Without a leak that floor moved by up to 15 MB either way between minutes in trial runs; 32 MB
 * over the 8 minutes after minute 2 of a 10-minute run is what a leak of about 120 bytes per
 * request leaves at the ~600 requests a second each node answers on a 2-core machine. Runs of
 * fewer than 3 minutes have nothing to compare and skip the check.
 */
const MAX_HEAP_FLOOR_GROWTH_BYTES = 32 * 1024 * 1024;
/**
 * RSS moves by a hundred MB without any leak (V8 grows its heap under load and gives pages back
 * when it shrinks it, one trial node went from 313 to 190 MB within a minute), so it is held to a
 * looser bound, for memory outside the JavaScript heap (buffers, sockets, native code).
 */
const MAX_RSS_GROWTH_BYTES = 64 * 1024 * 1024;

const MB = 1024 * 1024;

/**
 * autocannon with several URLs, over which it spreads its connections in turn (its README, `url`);
 * its type declarations know only one.
 */
const loadNodes = autocannon as unknown as (
  options: Omit<autocannon.Options, 'url'> & { url: string[] },
) => Promise<autocannon.Result>;
const env = loadEnv();
const { SOAK_MINUTES: minutes, SOAK_NODES: nodeCount, SOAK_CONNECTIONS: connections } = loadBenchEnv();

async function post<T>(url: string, rootKey: string, procedure: string, body: unknown): Promise<T> {
  const response = await fetch(`${url}/v2/${procedure}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
    body: JSON.stringify(body),
  });
  const parsed = (await response.json()) as { data: T; error?: unknown };
  if (!response.ok) throw new Error(`${procedure}: ${JSON.stringify(parsed.error)}`);
  return parsed.data;
}

/** One kind of call of the mix: its share (percent) and a body for it, drawn afresh for each request. */
interface Operation {
  name: string;
  percent: number;
  procedure: string;
  body: () => unknown;
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

/** Keys, APIs and names the mix draws from, created through the first node before the load starts. */
async function createWorkload(call: <T>(procedure: string, body: unknown) => Promise<T>): Promise<Operation[]> {
  const createApi = async (name: string) => (await call<{ apiId: string }>('apis.createApi', { name })).apiId;
  const createKeys = async (apiId: string, count: number, body: object = {}) => {
    const created = [];
    for (let index = 0; index < count; index++) {
      created.push(await call<{ keyId: string; key: string }>('keys.createKey', { apiId, ...body }));
    }
    return created;
  };
  const apis = await Promise.all(['soak-a', 'soak-b', 'soak-c'].map(createApi));
  const plain = (await Promise.all(apis.map((apiId) => createKeys(apiId, 10)))).flat().map(({ key }) => key);
  const metered = (
    await createKeys(apis[0] as string, 10, {
      credits: { remaining: 1_000_000_000_000 },
      ratelimits: [{ name: 'requests', limit: 1_000_000_000, duration: 60_000, autoApply: true }],
    })
  ).map(({ key }) => key);
  // Refused a share of the time: 25 a second over all nodes, against some 50 sent to each.
  const tight = (
    await createKeys(apis[1] as string, 2, {
      ratelimits: [{ name: 'requests', limit: 25, duration: 1000, autoApply: true }],
    })
  ).map(({ key }) => key);
  // Runs out within the first minute, then answers USAGE_EXCEEDED.
  const [scarce] = (await createKeys(apis[2] as string, 1, { credits: { remaining: 5000 } })).map(({ key }) => key);
  const unknown = Array.from({ length: 1000 }, () => `sk_${randomBytes(16).toString('base64url')}`);
  const managedApi = await createApi('soak-managed');
  const managed = (await createKeys(managedApi, 50)).map(({ keyId }) => keyId);
  const customers = Array.from({ length: 100 }, (_, index) => `customer_${index}`);
  let updates = 0;
  return [
    { name: 'verifyKey: valid', percent: 50, procedure: 'keys.verifyKey', body: () => ({ key: pick(plain) }) },
    {
      name: 'verifyKey: credits + rate limit',
      percent: 20,
      procedure: 'keys.verifyKey',
      body: () => ({ key: pick(metered) }),
    },
    {
      name: 'verifyKey: tight rate limit',
      percent: 5,
      procedure: 'keys.verifyKey',
      body: () => ({ key: pick(tight) }),
    },
    { name: 'verifyKey: credits run out', percent: 5, procedure: 'keys.verifyKey', body: () => ({ key: scarce }) },
    { name: 'verifyKey: unknown', percent: 10, procedure: 'keys.verifyKey', body: () => ({ key: pick(unknown) }) },
    {
      name: 'ratelimit.limit',
      percent: 4,
      procedure: 'ratelimit.limit',
      body: () => ({ namespace: 'soak.requests', identifier: pick(customers), limit: 5, duration: 10_000 }),
    },
    {
      name: 'ratelimit.multiLimit',
      percent: 1,
      procedure: 'ratelimit.multiLimit',
      body: () =>
        ['soak.requests', 'soak.tokens'].map((namespace) => ({
          namespace,
          identifier: pick(customers),
          limit: 1000,
          duration: 60_000,
        })),
    },
    { name: 'keys.getKey', percent: 2, procedure: 'keys.getKey', body: () => ({ keyId: pick(managed) }) },
    {
      name: 'keys.updateKey',
      percent: 1,
      procedure: 'keys.updateKey',
      body: () => ({ keyId: pick(managed), meta: { plan: pick(['free', 'pro', 'team']), update: ++updates } }),
    },
    { name: 'keys.createKey', percent: 1, procedure: 'keys.createKey', body: () => ({ apiId: managedApi }) },
    { name: 'apis.listKeys', percent: 1, procedure: 'apis.listKeys', body: () => ({ apiId: managedApi, limit: 20 }) },
  ];
}

/** Draws the operation of each request by its share. */
function mix(operations: Operation[]) {
  const total = operations.reduce((sum, { percent }) => sum + percent, 0);
  if (Math.abs(total - 100) > 1e-9) throw new Error(`the mix adds up to ${total}%, not 100%`);
  return (): Operation => {
    let draw = Math.random() * total;
    for (const operation of operations) {
      draw -= operation.percent;
      if (draw < 0) return operation;
    }
    return operations.at(-1) as Operation;
  };
}

/** Sums of some of a node's Prometheus samples, by metric name (and labels, as written). */
async function scrape(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** The sum of a metric's samples whose series starts with `series` (a name, or a name and its first labels). */
function total(samples: Map<string, number>, series: string): number {
  let sum = 0;
  for (const [name, value] of samples) {
    if (name === series || name.startsWith(`${series}{`) || name.startsWith(`${series},`)) sum += value;
  }
  return sum;
}

/** What one node's metrics say at the end of a minute. */
interface NodeSample {
  rss: number;
  heapUsed: number;
  cpuSeconds: number;
  eventsBuffered: number;
}

function nodeSample(samples: Map<string, number>): NodeSample {
  return {
    rss: total(samples, 'process_resident_memory_bytes'),
    heapUsed: total(samples, 'nodejs_heap_size_used_bytes'),
    cpuSeconds: total(samples, 'process_cpu_seconds_total'),
    eventsBuffered: total(samples, 'keyplane_events_buffered'),
  };
}

/** Each node's RSS and lowest heap used in MB, CPU in percent of a core (dashes before the load). */
function memoryColumns(samples: (NodeSample & { heapFloor?: number; cpuShare?: number })[]): string {
  return samples
    .map(
      ({ rss, heapUsed, heapFloor, cpuShare }) =>
        `${(rss / MB).toFixed(0)}/${((heapFloor ?? heapUsed) / MB).toFixed(0)}/${cpuShare === undefined ? '-' : (cpuShare * 100).toFixed(0)}`,
    )
    .join('  ');
}

/** Counts by label value of a labelled counter, summed over the nodes. */
function byLabel(all: Map<string, number>[], metric: string, label: string): Record<string, number> {
  const counts: Record<string, number> = {};
  const pattern = new RegExp(`^${metric}\\{.*${label}="([^"]+)"`);
  for (const samples of all) {
    for (const [name, value] of samples) {
      const match = pattern.exec(name);
      if (match?.[1]) counts[match[1]] = (counts[match[1]] ?? 0) + value;
    }
  }
  return counts;
}

interface Minute {
  minute: number;
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Socket errors and timeouts. */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Transactions committed in the database, reads included (each statement outside one is one). */
  transactionsPerSecond: number;
  nodes: (NodeSample & { heapFloor: number; cpuShare: number })[];
}

const database = await createDatabase();
const spoolDir = await mkdtemp(join(tmpdir(), 'keyplane-soak-'));
// As `npm start` runs a node (request logging on), each with a spool of its own in one directory.
const serverEnv = {
  DATABASE_URL: database.url,
  LOG_REQUESTS: 'true',
  EVENT_SPOOL_DIR: spoolDir,
  ...(env.REDIS_URL ? { REDIS_URL: env.REDIS_URL } : {}),
};
const nodes: SpawnedServer[] = [];
const stats = new pg.Client({ connectionString: database.url });
let failed = false;
try {
  // The first node migrates and bootstraps the workspace; the others join it.
  nodes.push(await spawnServer(serverEnv));
  nodes.push(...(await Promise.all(Array.from({ length: nodeCount - 1 }, () => spawnServer(serverEnv)))));
  const [first] = nodes as [SpawnedServer];
  const rootKey = first.rootKey;
  if (!rootKey) throw new Error('the server did not print a bootstrap root key');
  const operations = await createWorkload((procedure, body) => post(first.url, rootKey, procedure, body));
  const draw = mix(operations);
  await stats.connect();
  const transactions = async () =>
    Number(
      (
        await stats.query<{ transactions: string }>(
          'select xact_commit as transactions from pg_stat_database where datname = current_database()',
        )
      ).rows[0]?.transactions,
    );

  console.log(
    `soak: ${minutes} min, ${nodeCount} nodes, ${connections} connections spread over them; Redis: ${env.REDIS_URL ? 'yes' : 'no (in-process)'}`,
  );
  console.log(`mix: ${operations.map(({ name, percent }) => `${name} ${percent}%`).join(', ')}\n`);
  console.log(
    'min'.padStart(3),
    'req/s'.padStart(7),
    'p50 ms'.padStart(7),
    'p99 ms'.padStart(7),
    'errors'.padStart(7),
    'PG xact/s'.padStart(10),
    ' per node: RSS MB / heap used MB, lowest of the minute / CPU %',
  );
  const results: Minute[] = [];
  let before = {
    transactions: await transactions(),
    nodes: (await Promise.all(nodes.map(({ url }) => scrape(url)))).map(nodeSample),
  };
  const idle = before.nodes;
  console.log('0'.padStart(3), 'idle'.padStart(7), ''.padStart(7 + 1 + 7 + 1 + 7 + 1 + 10), ' ', memoryColumns(idle));
  const generatorCpuBefore = process.cpuUsage();
  for (let minute = 1; minute <= minutes; minute++) {
    // Heap used moves by a hundred MB with the garbage collector's phase: its lowest value over the
    // minute is what survived collection, the number a leak raises.
    const floors = nodes.map(() => Number.POSITIVE_INFINITY);
    const sampling = (async () => {
      for (let sample = 1; sample < SECONDS_PER_MINUTE / SAMPLE_EVERY_SECONDS; sample++) {
        await sleep(SAMPLE_EVERY_SECONDS * 1000);
        const samples = (await Promise.all(nodes.map(({ url }) => scrape(url)))).map(nodeSample);
        samples.forEach(({ heapUsed }, index) => {
          floors[index] = Math.min(floors[index] as number, heapUsed);
        });
      }
    })().then(
      () => undefined,
      (error: unknown) => error ?? new Error('sampling failed'),
    );
    const result = await loadNodes({
      url: nodes.map(({ url }) => url),
      connections,
      duration: SECONDS_PER_MINUTE,
      timeout: TIMEOUT_SECONDS,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
      requests: [
        {
          setupRequest: (request) => {
            const { procedure, body } = draw();
            return { ...request, path: `/v2/${procedure}`, body: JSON.stringify(body()) };
          },
        },
      ],
    });
    const samplingError = await sampling;
    if (samplingError) throw samplingError;
    const after = {
      transactions: await transactions(),
      nodes: (await Promise.all(nodes.map(({ url }) => scrape(url)))).map(nodeSample),
    };
    const statusCodes = Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, { count = 0 }]) => [code, count]),
    );
    const measured: Minute = {
      minute,
      requests: result.requests.total,
      seconds: result.duration,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodes,
      transactionsPerSecond: (after.transactions - before.transactions) / result.duration,
      nodes: after.nodes.map((sample, index) => ({
        ...sample,
        heapFloor: Math.min(floors[index] as number, sample.heapUsed),
        cpuShare: (sample.cpuSeconds - (before.nodes[index] as NodeSample).cpuSeconds) / result.duration,
      })),
    };
    before = after;
    results.push(measured);
    console.log(
      String(minute).padStart(3),
      (measured.requests / measured.seconds).toFixed(0).padStart(7),
      String(measured.p50).padStart(7),
      String(measured.p99).padStart(7),
      String(measured.non2xx + measured.errors).padStart(7),
      measured.transactionsPerSecond.toFixed(0).padStart(10),
      ' ',
      memoryColumns(measured.nodes),
    );
  }
  const generatorCpu = process.cpuUsage(generatorCpuBefore);

  // The summary.
  const requests = results.reduce((sum, { requests }) => sum + requests, 0);
  const seconds = results.reduce((sum, { seconds }) => sum + seconds, 0);
  const non2xx = results.reduce((sum, { non2xx }) => sum + non2xx, 0);
  const socketErrors = results.reduce((sum, { errors, timeouts }) => sum + errors - timeouts, 0);
  const timeouts = results.reduce((sum, { timeouts }) => sum + timeouts, 0);
  const statusCodes: Record<string, number> = {};
  for (const { statusCodes: codes } of results) {
    for (const [code, count] of Object.entries(codes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  const finalSamples = await Promise.all(nodes.map(({ url }) => scrape(url)));
  const connectionsByPool = await stats.query<{ application_name: string; connections: number }>(
    `select application_name, count(*)::int as connections from pg_stat_activity
     where datname = current_database() and pid <> pg_backend_pid() group by 1 order by 1`,
  );
  const [verificationRows] = (
    await stats.query<{ rows: number; bytes: string }>(
      `select (select count(*)::int from key_verifications) as rows,
              (select sum(pg_total_relation_size(relid)) from pg_partition_tree('key_verifications')) as bytes`,
    )
  ).rows;
  const last = results.at(-1) as Minute;
  console.log(
    `\n${requests} requests in ${seconds.toFixed(0)} s: ${(requests / seconds).toFixed(0)} req/s; p99 at worst ${Math.max(...results.map(({ p99 }) => p99))} ms`,
  );
  const serverCpuSeconds = last.nodes.reduce(
    (sum, { cpuSeconds }, index) => sum + cpuSeconds - (idle[index] as NodeSample).cpuSeconds,
    0,
  );
  console.log(
    `CPU: the nodes ${((serverCpuSeconds * 1e6) / requests).toFixed(0)} us per request (all nodes, all calls of the mix);` +
      ` the load generator ${(((generatorCpu.user + generatorCpu.system) / 1e6 / seconds) * 100).toFixed(0)}% of a core`,
  );
  console.log(`status codes: ${JSON.stringify(statusCodes)}`);
  console.log(`errors: ${non2xx} non-2xx, ${socketErrors} socket errors, ${timeouts} timeouts`);
  console.log(
    `verifications by outcome: ${JSON.stringify(byLabel(finalSamples, 'keyplane_verifications_total', 'outcome'))}`,
  );
  console.log(
    `rate-limit calls by decision: ${JSON.stringify(byLabel(finalSamples, 'keyplane_ratelimit_decisions_total', 'decision'))}`,
  );
  console.log(
    `events buffered at the end, by node: ${last.nodes.map(({ eventsBuffered }) => eventsBuffered).join(', ')}`,
  );
  console.log(
    `PostgreSQL connections (all nodes, by application_name): ${connectionsByPool.rows.map(({ application_name: name, connections: count }) => `${name || '(unnamed)'} ${count}`).join(', ')}`,
  );
  if (verificationRows) {
    console.log(
      `verification events in PostgreSQL: ${verificationRows.rows} rows, ${(Number(verificationRows.bytes) / verificationRows.rows).toFixed(0)} bytes a row with its indexes`,
    );
  }
  if (non2xx + socketErrors + timeouts > 0) failed = true;
  const second = results[1];
  if (second === undefined || results.length < 3) {
    console.log('memory: fewer than 3 minutes, nothing to compare minute 2 with');
  } else {
    console.log(
      `memory, minute 2 -> minute ${last.minute} (per node at most +${MAX_HEAP_FLOOR_GROWTH_BYTES / MB} MB of lowest heap used, +${MAX_RSS_GROWTH_BYTES / MB} MB of RSS):`,
    );
    const change = (from: number, to: number) =>
      `${(from / MB).toFixed(1)} -> ${(to / MB).toFixed(1)} MB (${to >= from ? '+' : ''}${((to - from) / MB).toFixed(1)})`;
    last.nodes.forEach(({ rss, heapFloor }, index) => {
      const start = second.nodes[index] as Minute['nodes'][number];
      const grew = heapFloor - start.heapFloor > MAX_HEAP_FLOOR_GROWTH_BYTES || rss - start.rss > MAX_RSS_GROWTH_BYTES;
      if (grew) failed = true;
      console.log(
        `  node ${index + 1}: lowest heap used ${change(start.heapFloor, heapFloor)}, RSS ${change(start.rss, rss)}${grew ? '  GREW' : ''}`,
      );
    });
  }
} finally {
  await stats.end().catch(() => {});
  const exitCodes = await Promise.all(nodes.map((node) => node.stop()));
  if (exitCodes.some((code) => code !== 0)) {
    console.log(`nodes stopped with exit codes ${exitCodes.join(', ')} (each should stop with 0)`);
    failed = true;
  }
  await database.drop();
  await rm(spoolDir, { recursive: true, force: true });
}
console.log(failed ? '\nFAILED' : '\npassed: no error, memory flat');
process.exitCode = failed ? 1 : 0;
