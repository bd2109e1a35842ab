import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapRootKey, type ServerProcess, startServerProcess } from '../../../apps/api/test/serverProcess.ts';

// The package as a service outside this monorepo gets it: built, packed, installed from the tarball.

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** A consumer's program: typed calls, and wrong ones that must not compile. */
const CONSUMER = `
import { createKeyplaneClient, type KeyplaneClient, KeyplaneError, type RouterOutputs } from '@keyplane/client';

export async function provision(baseUrl: string, rootKey: string) {
  const keyplane = createKeyplaneClient({ baseUrl, rootKey });
  const { apiId } = await keyplane.apis.createApi.mutate({ name: 'packed' });
  const api: RouterOutputs['apis']['getApi'] = await keyplane.apis.getApi.query({ apiId });
  const failure = await keyplane.apis.getApi.query({ apiId: 'api_doesnotexist' }).catch((error: unknown) => error);
  if (!(failure instanceof KeyplaneError)) throw new Error('expected a KeyplaneError');
  const { status, type, requestId } = failure;
  return { name: api.name, keyAuth: api.keyAuth.enabled, failure: { status, type, requestId } };
}

export function wrongCalls(keyplane: KeyplaneClient) {
  // @ts-expect-error an API id is a string
  void keyplane.apis.getApi.query({ apiId: 42 });
  // @ts-expect-error createApi requires a name
  void keyplane.apis.createApi.mutate({});
  // @ts-expect-error there is no such procedure
  void keyplane.apis.dropEverything.mutate({});
  // @ts-expect-error getApi answers a name that is a string
  const name: number = (null as unknown as RouterOutputs['apis']['getApi']).name;
  return name;
}
`;

const RUNNER = `
import { provision } from './consumer.ts';
console.log(JSON.stringify(await provision(process.argv[2], process.argv[3])));
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2024',
    // tRPC's declarations use `Disposable`; DOM brings `fetch`'s types, as @types/node would.
    lib: ['ES2024', 'ESNext.Disposable', 'DOM'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
  },
  include: ['consumer.ts'],
};

let scratch: string;
let project: string;
let server: ServerProcess;
let rootKey: string;

beforeAll(async () => {
  server = await startServerProcess();
  rootKey = bootstrapRootKey(server);
  scratch = await mkdtemp(join(tmpdir(), 'keyplane-client-'));
  await run(process.execPath, ['build.ts'], { cwd: PACKAGE_DIR });
  const { stdout } = await run('npm', ['pack', join(PACKAGE_DIR, 'dist'), '--pack-destination', scratch, '--json'], {
    cwd: scratch,
  });
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
  project = join(scratch, 'service');
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'service', private: true, type: 'module' }));
  await run('npm', ['install', join(scratch, filename), '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: project,
  });
  await writeFile(join(project, 'consumer.ts'), CONSUMER);
  await writeFile(join(project, 'run.js'), RUNNER);
  await writeFile(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
}, 180_000);

afterAll(async () => {
  await server?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the published package', () => {
  it('installs tRPC and nothing of the server', async () => {
    const lock = JSON.parse(await readFile(join(project, 'node_modules/.package-lock.json'), 'utf8'));
    const installed = Object.keys(lock.packages).map((path) => path.replace(/^node_modules\//, ''));
    // TypeScript comes as tRPC's peer dependency.
    expect(installed.filter((name) => !/^(typescript|@typescript\/.*)$/.test(name)).sort()).toEqual([
      '@keyplane/client',
      '@trpc/client',
      '@trpc/server',
    ]);
  });

  it('declares its types in one file that imports only tRPC', async () => {
    const declarations = await readFile(join(project, 'node_modules/@keyplane/client/index.d.ts'), 'utf8');
    const imported = [...declarations.matchAll(/(?:from\s+|import\(\s*)['"]([^'"]+)['"]/g)].map((match) => match[1]);
    expect(new Set(imported)).toEqual(new Set(['@trpc/server', '@trpc/client']));
    expect(declarations).not.toMatch(/EntityManager|mikro-orm|@keyplane\//);
  });

  it('type-checks typed calls and rejects wrong ones (strict tsc)', async () => {
    // tsc fails on any type error, and on any @ts-expect-error that expects one in vain.
    await expect(run(process.execPath, [TSC, '-p', project])).resolves.toMatchObject({ stdout: '' });
  });

  it('calls a running server', async () => {
    const { stdout } = await run(process.execPath, ['run.js', server.url, rootKey], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({
      name: 'packed',
      keyAuth: true,
      failure: { status: 404, type: 'service/data/api_not_found', requestId: expect.stringMatching(/^req_/) },
    });
  });
});
