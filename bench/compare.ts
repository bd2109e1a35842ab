// Compares this checkout's server with another commit's, on the cases of `npm run bench`, at one
// time on one machine. On a small shared machine a case moves by tens of percent between runs
// minutes apart (docs/performance.md#how-to-measure), far more than most changes: here both
// servers run side by side on one database, as npm start runs them (request logging on), and
// every round of a case is a round of the ceiling, then one of each server in alternating order. A
// change is judged by the differences of the rounds run next to each other, above all in the main
// thread's CPU per request, the thread that answers requests.
//   DATABASE_URL=postgresql://… REDIS_URL=redis://… npm run bench:compare -- [commit] [case]
// The commit (HEAD when omitted: what is not committed yet against the last commit) is exported
// with `git archive` to a temporary directory that shares this checkout's node_modules through
// hard links, so it compares the code, not the dependencies. [case] picks the cases whose names
// contain it (e.g. multiLimit). Without DATABASE_URL an embedded PostgreSQL is started.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEnv } from '@keyplane/config';
import { createDatabase } from './database.ts';
import { gcPausedColumn, type Run, rate, run, SECONDS_PER_ROUND, signed, startCeiling, summarise } from './measure.ts';
import { type SpawnedServer, spawnServer } from './server.ts';
import { serverCases } from './serverCases.ts';

/** Rounds per case and server, after one warm-up round each: enough for a median of differences. */
const COMPARE_ROUNDS = 6;

const [commit = 'HEAD', only = ''] = process.argv.slice(2);
const env = loadEnv();
const checkout = fileURLToPath(new URL('..', import.meta.url));
const exported = mkdtempSync(join(tmpdir(), 'keyplane-compare-'));
const database = await createDatabase();
const servers: { label: string; server: SpawnedServer }[] = [];
const ceiling = await startCeiling();
try {
  execFileSync('sh', ['-c', 'git -C "$1" archive "$2" | tar -x -C "$3"', 'sh', checkout, commit, exported]);
  execFileSync('cp', ['-al', join(checkout, 'node_modules'), join(exported, 'node_modules')]);
  const serverEnv = {
    DATABASE_URL: database.url,
    ...(env.REDIS_URL ? { REDIS_URL: env.REDIS_URL } : {}),
    LOG_REQUESTS: 'true',
  };
  // The first one creates the workspace and prints its root key; the second shares both.
  servers.push({
    label: commit,
    server: await spawnServer(serverEnv, { entry: join(exported, 'apps/api/src/main.ts') }),
  });
  servers.push({ label: 'this checkout', server: await spawnServer(serverEnv) });
  const all = await serverCases((servers[0] as (typeof servers)[0]).server);
  const cases = all.cases.filter(({ name }) => name.includes(only));
  if (cases.length === 0) throw new Error(`no case's name contains "${only}"`);
  const { headers } = all;

  console.log(
    `\n${commit} against this checkout, side by side: per case ${COMPARE_ROUNDS} rounds of ${SECONDS_PER_ROUND} s each,` +
      ` each a round of the ceiling and one of each server; Redis: ${env.REDIS_URL ? 'yes' : 'no (in-process)'}\n`,
  );
  console.log(
    'case / server'.padEnd(48),
    'req/s'.padStart(9),
    'of ceiling'.padStart(11),
    'p99 ms'.padStart(8),
    'server CPU us/req'.padStart(18),
    'main thread'.padStart(12),
    'GC paused'.padStart(15),
  );
  for (const { name, procedure, body } of cases) {
    const text = JSON.stringify(body);
    const roundOf = ({ server }: (typeof servers)[0]) =>
      run(`${server.url}/v2/${procedure}`, { headers, body: text }, server.pid, `${server.url}/metrics`);
    for (const server of servers) await roundOf(server);
    const ceilingRounds: Run[] = [];
    const rounds: [Run[], Run[]] = [[], []];
    for (let round = 0; round < COMPARE_ROUNDS; round++) {
      ceilingRounds.push(await run(ceiling.url, { headers, body: '{}' }, ceiling.child.pid));
      // Alternating which server runs first spreads the drift within a round over both.
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const index of order) rounds[index]?.push(await roundOf(servers[index] as (typeof servers)[0]));
    }
    const ceilingRate = summarise(ceilingRounds).requestsPerSecond;
    console.log(name);
    for (const [index, { label }] of servers.entries()) {
      const measured = summarise(rounds[index] as Run[]);
      console.log(
        `  ${label}`.padEnd(48),
        measured.requestsPerSecond.toFixed(0).padStart(9),
        `${((measured.requestsPerSecond / ceilingRate) * 100).toFixed(1)}%`.padStart(11),
        String(measured.p99).padStart(8),
        (measured.serverCpuMicros?.toFixed(1) ?? '-').padStart(18),
        (measured.mainThreadCpuMicros?.toFixed(1) ?? '-').padStart(12),
        gcPausedColumn(measured).padStart(15),
      );
    }
    const mainThreadMicros = (round: Run) =>
      round.mainThreadCpuSeconds === undefined ? Number.NaN : (round.mainThreadCpuSeconds * 1e6) / round.requests;
    const differences = rounds[1]
      .map((round, at) => mainThreadMicros(round) - mainThreadMicros(rounds[0][at] as Run))
      .sort((a, b) => a - b);
    const rateRatios = rounds[1].map((round, at) => rate(round) / rate(rounds[0][at] as Run)).sort((a, b) => a - b);
    const median = (values: number[]) => values[Math.floor(values.length / 2)] ?? Number.NaN;
    console.log(
      `  this checkout against ${commit}: main thread ${signed(median(differences))} us/req` +
        ` (rounds ${signed(differences[0] ?? Number.NaN)} to ${signed(differences.at(-1) ?? Number.NaN)}),` +
        ` req/s ×${median(rateRatios).toFixed(3)} (rounds ×${(rateRatios[0] ?? Number.NaN).toFixed(3)} to ×${(rateRatios.at(-1) ?? Number.NaN).toFixed(3)})`,
    );
  }
} finally {
  for (const { server } of servers) await server.stop();
  ceiling.child.kill();
  await database.drop();
  rmSync(exported, { recursive: true, force: true });
}
