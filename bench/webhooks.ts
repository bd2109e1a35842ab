// What a key.credits.low webhook endpoint costs verification: keys.verifyKey of a key with credits,
// its rounds alternating between the workspace's endpoint enabled and disabled (the credit-spend
// batch looks the endpoints up whenever it changes a balance), each set against a round of the bare
// node:http ceiling. The server runs as `npm start` runs it (request logging on).
//   DATABASE_URL=postgresql://… REDIS_URL=redis://… npm run bench:webhooks
// Without DATABASE_URL an embedded PostgreSQL is started in a temporary directory.
import { loadEnv } from '@keyplane/config';
import { createDatabase } from './database.ts';
import {
  CONNECTIONS,
  post,
  ROUNDS,
  type Run,
  rate,
  run,
  SECONDS_PER_ROUND,
  startCeiling,
  summarise,
} from './measure.ts';
import { spawnServer } from './server.ts';

const env = loadEnv();
const database = await createDatabase();
const ceiling = await startCeiling();
const server = await spawnServer({
  DATABASE_URL: database.url,
  ...(env.REDIS_URL ? { REDIS_URL: env.REDIS_URL } : {}),
  LOG_REQUESTS: 'true',
});
try {
  const rootKey = server.rootKey;
  if (!rootKey) throw new Error('the server did not print a bootstrap root key');
  const call = <T>(procedure: string, body: unknown) => post<T>(`${server.url}/v2/${procedure}`, rootKey, body);
  const { apiId } = await call<{ apiId: string }>('apis.createApi', { name: 'bench' });
  // Far from any threshold: the endpoint is looked up on every spend and never sent anything.
  const { key } = await call<{ key: string }>('keys.createKey', { apiId, credits: { remaining: 1_000_000_000_000 } });
  const { endpointId } = await call<{ endpointId: string }>('webhooks.createEndpoint', {
    url: 'https://hooks.example.com/keyplane',
    eventTypes: ['key.credits.low', 'key.credits.exhausted'],
    creditsLow: { threshold: 1000 },
  });
  const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` };
  const body = JSON.stringify({ key });
  const rounds = { with: [] as Run[], without: [] as Run[], ceiling: [] as Run[] };
  const ratios = { with: [] as number[], without: [] as number[] };
  for (let round = 0; round < ROUNDS * 2; round++) {
    // Alternating which runs first spreads the machine's drift over both.
    const order = round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const);
    for (const configuration of order) {
      await call('webhooks.updateEndpoint', { endpointId, enabled: configuration === 'with' });
      const ceilingRound = await run(ceiling.url, { headers, body: '{}' }, ceiling.child.pid);
      const measured = await run(`${server.url}/v2/keys.verifyKey`, { headers, body }, server.pid);
      rounds.ceiling.push(ceilingRound);
      rounds[configuration].push(measured);
      ratios[configuration].push(rate(measured) / rate(ceilingRound));
    }
  }
  const ceilingSummary = summarise(rounds.ceiling);
  console.log(
    `\n${CONNECTIONS} connections; ${ROUNDS * 2} rounds of ${SECONDS_PER_ROUND} s per configuration, each after a round of the ceiling\n`,
  );
  console.log(
    'verifyKey with credits'.padEnd(40),
    'req/s'.padStart(9),
    'p50 ms'.padStart(8),
    'p99 ms'.padStart(8),
    'of ceiling'.padStart(11),
    'non-2xx'.padStart(8),
  );
  console.log('ceiling: bare node:http'.padEnd(40), ceilingSummary.requestsPerSecond.toFixed(0).padStart(9));
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  for (const configuration of ['without', 'with'] as const) {
    const measured = summarise(rounds[configuration]);
    console.log(
      `${configuration === 'with' ? 'key.credits.low endpoint' : 'no enabled endpoint'}`.padEnd(40),
      measured.requestsPerSecond.toFixed(0).padStart(9),
      String(measured.p50).padStart(8),
      String(measured.p99).padStart(8),
      `${(mean(ratios[configuration]) * 100).toFixed(1)}%`.padStart(11),
      String(measured.non2xx).padStart(8),
      (measured.serverCpuMicros?.toFixed(1) ?? '-').padStart(18),
    );
  }
  const cost = (1 - mean(ratios.with) / mean(ratios.without)) * 100;
  const [withCpu, withoutCpu] = [summarise(rounds.with), summarise(rounds.without)].map((m) => m.serverCpuMicros);
  console.log(`\nThe endpoint costs ${cost.toFixed(1)}% of verification throughput (target: at most 5%).`);
  if (withCpu !== undefined && withoutCpu !== undefined) {
    // CPU per request moves far less than req/s on a shared machine (bench/run.ts).
    console.log(`Server CPU per verification: ${((withCpu / withoutCpu - 1) * 100).toFixed(1)}% with the endpoint.`);
  }
} finally {
  ceiling.child.kill();
  await server.stop();
  await database.drop();
}
