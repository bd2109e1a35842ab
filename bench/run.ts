// Throughput and latency of keys.verifyKey, ratelimit.limit and ratelimit.multiLimit against a
// running server on a real PostgreSQL (and Redis when REDIS_URL is set), compared with a bare
// node:http server on the same machine. The server is configured as `npm start` runs it: request
// logging on, its stdout a pipe this process reads, as a process manager would.
//   DATABASE_URL=postgresql://… REDIS_URL=redis://… npm run bench
// Without DATABASE_URL an embedded PostgreSQL is started in a temporary directory.
// BENCH_COMPARE_LOGGING=1 also runs every case on a second server with LOG_REQUESTS=false, its rounds
// interleaved with the first one's, and prints what request logging costs.
// The server's CPU time per request (Linux) moves far less between runs than req/s does when the
// load generator, PostgreSQL and the server share a few cores: compare changes by it. "main thread"
// is the part of it spent by the thread that answers requests, which bounds a node's throughput
// (the rest is V8's helper threads and the event writer thread).
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
interface Configuration {
  label: string;
  server: SpawnedServer;
}

const env = loadEnv();
const { BENCH_COMPARE_LOGGING: compareLogging } = loadBenchEnv();
const database = await createDatabase();
const serverEnv = { DATABASE_URL: database.url, ...(env.REDIS_URL ? { REDIS_URL: env.REDIS_URL } : {}) };
const configurations: Configuration[] = [];
const ceiling = await startCeiling();
try {
  // LOG_REQUESTS is on by default; spawnServer turns it off for the tests, so it is set back here.
  configurations.push({ label: 'as npm start', server: await spawnServer({ ...serverEnv, LOG_REQUESTS: 'true' }) });
  // The second server shares the first one's database, workspace and keys.
  if (compareLogging) {
    configurations.push({
      label: 'LOG_REQUESTS=false',
      server: await spawnServer({ ...serverEnv, LOG_REQUESTS: 'false' }),
    });
  }
  const { cases, headers } = await serverCases((configurations[0] as Configuration).server);
  const ceilingRuns: Run[] = [];
  const results: {
    name: string;
    label: string;
    measured: Measured;
    ceiling: Measured;
    roundRatios?: number[];
  }[] = [];
  for (const { name, procedure, body } of cases) {
    const text = JSON.stringify(body);
    const adjacentCeiling: Run[] = [];
    const rounds = configurations.map((): Run[] => []);
    for (let round = 0; round < ROUNDS; round++) {
      adjacentCeiling.push(await run(ceiling.url, { headers, body: '{}' }, ceiling.child.pid));
      // Alternating which configuration runs first spreads the drift within a round over both.
      const order = configurations.map((_, index) => index);
      if (round % 2 === 1) order.reverse();
      for (const index of order) {
        const { server } = configurations[index] as Configuration;
        (rounds[index] as Run[]).push(
          await run(`${server.url}/v2/${procedure}`, { headers, body: text }, server.pid, `${server.url}/metrics`),
        );
      }
    }
    ceilingRuns.push(...adjacentCeiling);
    configurations.forEach(({ label }, index) => {
      const own = rounds[index] as Run[];
      // Each round against the ceiling round just before it: how far the ratio moves within one run.
      const roundRatios = own.map((round, at) => rate(round) / rate(adjacentCeiling[at] as Run));
      results.push({ name, label, measured: summarise(own), ceiling: summarise(adjacentCeiling), roundRatios });
    });
  }
  const allCeiling = summarise(ceilingRuns);

  console.log(
    `\n${CONNECTIONS} connections; per case ${ROUNDS} rounds of ${SECONDS_PER_ROUND} s, each after a round of the ceiling; Redis: ${env.REDIS_URL ? 'yes' : 'no (in-process)'}`,
  );
  console.log(
    `Server: ${configurations.map(({ label }) => label).join(', then ')}${compareLogging ? ' (their order alternating by round)' : ' (request logging on)'}\n`,
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
  const rows = [
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
    console.log('\nRequest logging on against off (as npm start against LOG_REQUESTS=false, same rounds):');
    for (const { name } of cases) {
      const [logged, quiet] = configurations.map(
        ({ label }) => results.find((result) => result.name === name && result.label === label)?.measured,
      );
      if (!logged || !quiet) continue;
      const cpu =
        logged.serverCpuMicros !== undefined && quiet.serverCpuMicros !== undefined
          ? `, server CPU ${signed(logged.serverCpuMicros - quiet.serverCpuMicros)} us/req`
          : '';
      console.log(
        `  ${name.padEnd(42)} req/s ${signed((logged.requestsPerSecond / quiet.requestsPerSecond - 1) * 100)}%${cpu}`,
      );
    }
  }
} finally {
  ceiling.child.kill();
  await Promise.all(configurations.map(({ server }) => server.stop()));
  await database.drop();
}
