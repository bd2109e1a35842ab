// keys.verifyKey, ratelimit.limit and ratelimit.multiLimit through the /v2 pipeline in this process,
// with no HTTP: the adapter, tRPC, root-key authentication, the verification or the limits and their
// analytics events, for the same cases as `npm run bench`. Set against that bench's server CPU per request, it tells how much of a request's
// cost is the service's own work and how much is HTTP and the machine around it.
//   DATABASE_URL=postgresql://… REDIS_URL=redis://… npm run bench:pipeline
// Without DATABASE_URL an embedded PostgreSQL is started in a temporary directory.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEnv } from '@keyplane/config';
import { bootstrapWorkspace } from '@keyplane/core';
import { createOrm, migrate, workspaceStore } from '@keyplane/db';
import { createHttp } from '../apps/api/src/http/app.ts';
import { silentLogger } from '../apps/api/src/log.ts';
import { startServices } from '../apps/api/src/services.ts';
import { createDatabase } from './database.ts';
import { RATELIMIT_CASES } from './ratelimitCases.ts';
import { createVerifyCases } from './verifyCases.ts';

/** Calls in flight at once, as the HTTP bench's connections. */
const CONCURRENCY = 50;
const WARM_UP_CALLS = 20_000;
const CALLS_PER_ROUND = 40_000;
const ROUNDS = 5;

const env = loadEnv();
const database = await createDatabase();
const orm = await createOrm(database.url);
await migrate(orm);
const spoolDir = await mkdtemp(join(tmpdir(), 'keyplane-bench-spool-'));
const running = await startServices({
  orm,
  databaseUrl: database.url,
  redisUrl: env.REDIS_URL,
  logger: silentLogger,
  eventSpoolDir: spoolDir,
});
try {
  const { handleV2 } = createHttp({
    orm,
    logger: silentLogger,
    errorsBaseUrl: 'https://errors.bench',
    maxBodyBytes: 1 << 20,
    vaultMasterKey: undefined,
    services: running.services,
    readiness: running.readiness,
    logRequests: false,
  });
  const { rootKey } = await orm.em
    .fork()
    .transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: 'bench' }));
  /** One /v2 call with a JSON body already serialised, as the HTTP layer would hand it over. */
  const post = (procedure: string, text: string) =>
    handleV2(
      {
        method: 'POST',
        procedure,
        contentType: 'application/json',
        authorization: `Bearer ${rootKey}`,
        metricsDisabled: false,
        readBody: async () => text,
      },
      'req_bench',
    );
  const call = async (procedure: string, text: string) => {
    const answer = await post(procedure, text);
    if (answer.status !== 200) throw new Error(`${procedure}: ${JSON.stringify(answer.body)}`);
    // The HTTP layer serialises every answer: so does this bench.
    JSON.stringify(answer.body);
  };

  const verifyCases = await createVerifyCases(async <T>(procedure: string, body: unknown) => {
    const answer = await post(procedure, JSON.stringify(body));
    if (answer.status !== 200) throw new Error(`${procedure}: ${JSON.stringify(answer.body)}`);
    return (answer.body as { data: T }).data;
  });
  const cases: [name: string, procedure: string, text: string][] = [
    ...verifyCases.map(([name, key]): [string, string, string] => [name, 'keys.verifyKey', JSON.stringify({ key })]),
    ...RATELIMIT_CASES.map(({ name, procedure, body }): [string, string, string] => [
      name,
      procedure,
      JSON.stringify(body),
    ]),
  ];

  /** Wall and CPU time per call over `calls` calls, CONCURRENCY at a time. */
  async function round(procedure: string, text: string, calls: number) {
    const started = process.hrtime.bigint();
    const cpuBefore = process.cpuUsage();
    for (let done = 0; done < calls; done += CONCURRENCY) {
      await Promise.all(Array.from({ length: CONCURRENCY }, () => call(procedure, text)));
    }
    const cpu = process.cpuUsage(cpuBefore);
    return {
      wallMicros: Number(process.hrtime.bigint() - started) / 1000 / calls,
      cpuMicros: (cpu.user + cpu.system) / calls,
    };
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

  console.log(
    `\nIn-process through /v2 (no HTTP); ${CONCURRENCY} in flight; median of ${ROUNDS} rounds of ${CALLS_PER_ROUND}; Redis: ${env.REDIS_URL ? 'yes' : 'no (in-process)'}\n`,
  );
  console.log('case'.padEnd(42), 'calls/s'.padStart(9), 'wall us/call'.padStart(13), 'CPU us/call'.padStart(12));
  for (const [name, procedure, text] of cases) {
    await round(procedure, text, WARM_UP_CALLS);
    const rounds = [];
    for (let index = 0; index < ROUNDS; index++) rounds.push(await round(procedure, text, CALLS_PER_ROUND));
    const wall = median(rounds.map((measured) => measured.wallMicros));
    const cpu = median(rounds.map((measured) => measured.cpuMicros));
    console.log(
      name.padEnd(42),
      (1e6 / wall).toFixed(0).padStart(9),
      wall.toFixed(2).padStart(13),
      cpu.toFixed(2).padStart(12),
    );
  }
  console.log(
    '\nCPU is this whole process: the pipeline, and the Node side of event writes, credit spends and Redis calls.',
  );
} finally {
  await running.stop();
  await orm.close();
  await database.drop();
  await rm(spoolDir, { recursive: true, force: true });
}
