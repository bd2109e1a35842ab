// Throughput and latency of keys.verifyKey, ratelimit.limit and ratelimit.multiLimit against a
// running server on a real PostgreSQL (and Redis when REDIS_URL is set), compared with a bare
// node:http server on the same machine. The server is configured as `npm start` runs it: request
// logging on, its stdout a pipe this process reads, as a process manager would.
//   DATABASE_URL=postgresql://… REDIS_URL=redis://… npm run bench
// Without DATABASE_URL an embedded PostgreSQL is started in a temporary directory.
// BENCH_COMPARE_LOGGING=1 also runs every case with LOG_REQUESTS=false and prints what request
// logging costs: two servers of each configuration, their rounds interleaved, so that the
// difference two identical servers show is printed beside it.
// The server's CPU time per request (Linux) moves far less between runs than req/s does when the
// load generator, PostgreSQL and the server share a few cores: compare changes by it. "main thread"
// is the part of it spent by the thread that answers requests, which bounds a node's throughput
// (the rest is V8's helper threads and Node's other threads).
// The machine's speed drifts between runs and within one (shared hosts): each case runs in short
// rounds, each right after a round of the ceiling, and is set against those ceiling rounds.
import { loadBenchEnv, loadEnv } from '@keyplane/config';
import { createDatabase } from './database.ts';
import {
  CONNECTIONS,
  gcPausedColumn,
  type Measured,
  percent,
  ROUNDS,
  type Run,
  rate,
  run,
  SECONDS_PER_ROUND,
  signed,
  startCeiling,
  summarise,
} from './measure.ts';
import { type SpawnedServer, spawnServer } from './server.ts';
import { serverCases } from './serverCases.ts';

/** A server under measurement and the configuration it was started with. */
interface Instance {
  label: string;
  server: SpawnedServer;
}

const LOGGED = 'as npm start';
const QUIET = 'LOG_REQUESTS=false';

const env = loadEnv();
const { BENCH_COMPARE_LOGGING: compareLogging } = loadBenchEnv();
const database = await createDatabase();
const serverEnv = { DATABASE_URL: database.url, ...(env.REDIS_URL ? { REDIS_URL: env.REDIS_URL } : {}) };
// LOG_REQUESTS is on by default; spawnServer turns it off for the tests, so it is set back here.
const configurationEnv: Record<string, Record<string, string>> = {
  [LOGGED]: { ...serverEnv, LOG_REQUESTS: 'true' },
  [QUIET]: { ...serverEnv, LOG_REQUESTS: 'false' },
};
// Compared, each configuration runs on two servers started in the order on, off, off, on (later
// servers share the first one's database, workspace and keys): a server's own speed, which differs
// between identical servers by as much as logging costs on a noisy host, then counts on both sides,
// and the two servers of one configuration measured against each other show that difference.
const labels = compareLogging ? [LOGGED, QUIET, QUIET, LOGGED] : [LOGGED];
// An even number when compared, so that each server runs first in a round as often as last.
const rounds = compareLogging ? ROUNDS + (ROUNDS % 2) : ROUNDS;
const instances: Instance[] = [];
const ceiling = await startCeiling();
try {
  for (const label of labels) instances.push({ label, server: await spawnServer(configurationEnv[label] ?? {}) });
  const { cases, headers } = await serverCases((instances[0] as Instance).server);
  const ceilingRuns: Run[] = [];
  const results: {
    name: string;
    label: string;
    measured: Measured;
    /** Each of the configuration's servers on its own. */
    servers: Measured[];
    ceiling: Measured;
    roundRatios?: number[];
  }[] = [];
  for (const { name, procedure, body } of cases) {
    const text = JSON.stringify(body);
    const adjacentCeiling: Run[] = [];
    const serverRuns = instances.map((): Run[] => []);
    for (let round = 0; round < rounds; round++) {
      adjacentCeiling.push(await run(ceiling.url, { headers, body: '{}' }, ceiling.child.pid));
      // Alternating the order by round spreads the drift within a round over every server.
      const order = instances.map((_, index) => index);
      if (round % 2 === 1) order.reverse();
      for (const index of order) {
        const { server } = instances[index] as Instance;
        (serverRuns[index] as Run[]).push(
          await run(`${server.url}/v2/${procedure}`, { headers, body: text }, server.pid, `${server.url}/metrics`),
        );
      }
    }
    ceilingRuns.push(...adjacentCeiling);
    for (const label of new Set(labels)) {
      const own = serverRuns.filter((_, index) => instances[index]?.label === label);
      // Each round against the ceiling round just before it: how far the ratio moves within one run.
      const roundRatios = own.flatMap((runs) =>
        runs.map((round, at) => rate(round) / rate(adjacentCeiling[at] as Run)),
      );
      results.push({
        name,
        label,
        measured: summarise(own.flat()),
        servers: own.map(summarise),
        ceiling: summarise(adjacentCeiling),
        roundRatios,
      });
    }
  }
  const allCeiling = summarise(ceilingRuns);

  console.log(
    `\n${CONNECTIONS} connections; per case ${rounds} rounds of ${SECONDS_PER_ROUND} s, each after a round of the ceiling; Redis: ${env.REDIS_URL ? 'yes' : 'no (in-process)'}`,
  );
  console.log(
    `Server: ${compareLogging ? `${LOGGED} and ${QUIET}, two servers each, every round on all four in alternating order` : `${LOGGED} (request logging on)`}\n`,
  );
  const nameWidth = compareLogging ? 58 : 42;
  console.log(
    'case'.padEnd(nameWidth),
    'req/s'.padStart(9),
    'p50 ms'.padStart(8),
    'p99 ms'.padStart(8),
    'ceiling'.padStart(9),
    'of ceiling'.padStart(11),
    'rounds'.padStart(12),
    'non-2xx'.padStart(8),
    'server CPU us/req'.padStart(18),
    'main thread'.padStart(12),
    'GC paused'.padStart(15),
  );
  const rows: { name: string; label: string; measured: Measured; ceiling: Measured; roundRatios?: number[] }[] = [
    { name: 'ceiling: bare node:http, fixed JSON', label: '', measured: allCeiling, ceiling: allCeiling },
    ...results,
  ];
  for (const { name, label, measured, ceiling, roundRatios } of rows) {
    console.log(
      (compareLogging && label ? `${name} [${label}]` : name).padEnd(nameWidth),
      measured.requestsPerSecond.toFixed(0).padStart(9),
      String(measured.p50).padStart(8),
      String(measured.p99).padStart(8),
      ceiling.requestsPerSecond.toFixed(0).padStart(9),
      `${((measured.requestsPerSecond / ceiling.requestsPerSecond) * 100).toFixed(1)}%`.padStart(11),
      (roundRatios ? `${percent(Math.min(...roundRatios))}-${percent(Math.max(...roundRatios))}%` : '').padStart(12),
      String(measured.non2xx).padStart(8),
      (measured.serverCpuMicros?.toFixed(1) ?? '-').padStart(18),
      (measured.mainThreadCpuMicros?.toFixed(1) ?? '-').padStart(12),
      gcPausedColumn(measured).padStart(15),
    );
  }
  console.log(
    '\nEach case is compared with the ceiling rounds run between its own (its "ceiling" column); "rounds" is the\n' +
      'range of its rounds, each against the ceiling round just before it. "GC paused" is the share of the time\n' +
      "the server's garbage collector held up every request in flight, and its mean pause.",
  );
  if (compareLogging) {
    console.log(
      `\nRequest logging on against off (${LOGGED} against ${QUIET}, same rounds), and how far apart the two servers\n` +
        'of one configuration measured (the noise of the comparison):',
    );
    const throughputChange = (measured: Measured, other: Measured) =>
      `${signed((measured.requestsPerSecond / other.requestsPerSecond - 1) * 100)}%`;
    const difference = (measured: Measured, other: Measured) => {
      const cpu =
        measured.serverCpuMicros !== undefined && other.serverCpuMicros !== undefined
          ? `, server CPU ${signed(measured.serverCpuMicros - other.serverCpuMicros)} us/req`
          : '';
      return `req/s ${throughputChange(measured, other)}${cpu}`;
    };
    for (const { name } of cases) {
      const [logged, quiet] = [LOGGED, QUIET].map((label) =>
        results.find((result) => result.name === name && result.label === label),
      );
      if (!logged || !quiet) continue;
      const apart = [logged, quiet]
        .map(({ servers: [first, second] }) => (first && second ? throughputChange(first, second) : '-'))
        .join(', ');
      console.log(`  ${name.padEnd(42)} ${difference(logged.measured, quiet.measured)}; servers apart: ${apart}`);
    }
  }
} finally {
  ceiling.child.kill();
  await Promise.all(instances.map(({ server }) => server.stop()));
  await database.drop();
}
