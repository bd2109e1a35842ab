import { post } from './measure.ts';
import { type BenchCase, RATELIMIT_CASES } from './ratelimitCases.ts';
import type { SpawnedServer } from './server.ts';
import { createVerifyCases } from './verifyCases.ts';

/**
 * The cases of `npm run bench` and `bench:compare` on a server that created its workspace (it
 * printed the bootstrap root key), with the headers that call them as that root key.
 */
export async function serverCases(
  server: SpawnedServer,
): Promise<{ cases: BenchCase[]; headers: Record<string, string> }> {
  const { rootKey } = server;
  if (!rootKey) throw new Error('the server did not print a bootstrap root key');
  const verifications = await createVerifyCases((procedure, body) =>
    post(`${server.url}/v2/${procedure}`, rootKey, body),
  );
  return {
    cases: [
      ...verifications.map(([name, key]) => ({ name, procedure: 'keys.verifyKey', body: { key } })),
      ...RATELIMIT_CASES,
    ],
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
  };
}
