import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEnv } from '@keyplane/config';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../../../bench/server.ts';
import { createKeySnippetsFor, type Snippet, verifySnippetsFor } from '../src/snippets.ts';

// Every onboarding snippet the dashboard shows (screens/GettingStarted.tsx, the create-key dialog)
// is run as shown against a real server: curl in bash, TypeScript with Node, Python with python3.
/** Debian's python3, on every machine the suite runs on. */
const PYTHON = '/usr/bin/python3';
const REPO_NODE_MODULES = fileURLToPath(new URL('../../../node_modules', import.meta.url));

let database: TestDatabase;
let server: SpawnedServer;
let rootKey: string;
let apiId: string;
let workDir: string;
let pythonPath: string | undefined;

function run(command: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: 20_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

/** Runs a snippet as a reader would paste it, with their root key in KEYPLANE_ROOT_KEY; its standard output. */
async function runSnippet(snippet: Snippet): Promise<string> {
  const env: Record<string, string> = { KEYPLANE_ROOT_KEY: rootKey };
  if (snippet.label === 'curl') return run('/bin/bash', ['-c', snippet.code], env);
  if (snippet.label === 'Python') {
    return run(PYTHON, ['-c', snippet.code], pythonPath ? { ...env, PYTHONPATH: pythonPath } : env);
  }
  // TypeScript (our client, the reference's SDK): a module beside the repository's packages.
  const file = join(workDir, `${snippet.id}.mts`);
  await writeFile(file, snippet.code);
  return run(process.execPath, [file], env);
}

/**
 * The snippets use `requests`, as most Python backends do. Where python3 lacks it, a stand-in
 * with the two calls they make (`post`, `.json()`) runs them on the standard library.
 */
async function pythonWithRequests(): Promise<string | undefined> {
  try {
    await run(PYTHON, ['-c', 'import requests'], {});
    return undefined;
  } catch {
    const dir = join(workDir, 'python');
    await mkdir(dir);
    await writeFile(
      join(dir, 'requests.py'),
      [
        'import json, urllib.request',
        'class Response:',
        '    def __init__(self, body): self.body = body',
        '    def json(self): return json.loads(self.body)',
        'def post(url, headers=None, json=None):',
        "    data = __import__('json').dumps(json).encode()",
        "    request = urllib.request.Request(url, data=data, method='POST', headers={**(headers or {}), 'Content-Type': 'application/json'})",
        '    with urllib.request.urlopen(request) as answer: return Response(answer.read())',
      ].join('\n'),
    );
    return dir;
  }
}

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  const { REDIS_URL } = loadEnv();
  server = await spawnServer({ DATABASE_URL: database.url, ...(REDIS_URL ? { REDIS_URL } : {}) });
  if (!server.rootKey) throw new Error('the server did not print a bootstrap root key');
  rootKey = server.rootKey;
  workDir = await mkdtemp(join(tmpdir(), 'keyplane-snippets-'));
  await symlink(REPO_NODE_MODULES, join(workDir, 'node_modules'));
  pythonPath = await pythonWithRequests();
  const created = await fetch(`${server.url}/v2/apis.createApi`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
    body: JSON.stringify({ name: 'snippets' }),
  });
  apiId = ((await created.json()) as { data: { apiId: string } }).data.apiId;
});

afterAll(async () => {
  await server?.stop();
  await database?.drop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

async function verified(key: string) {
  const answer = await fetch(`${server.url}/v2/keys.verifyKey`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
    body: JSON.stringify({ key }),
  });
  return ((await answer.json()) as { data: { valid: boolean } }).data.valid;
}

describe('the onboarding snippets, run as shown', () => {
  it('create a key in each language, each one valid', async () => {
    const snippets = createKeySnippetsFor(server.url, apiId);
    expect(snippets.map((snippet) => snippet.label)).toEqual(['curl', 'TypeScript', 'Unkey SDK', 'Python']);
    // The TypeScript snippets keep the new key in a variable: the reader's next line prints it.
    const printKey: Record<string, string> = { TypeScript: 'console.log(key);', 'Unkey SDK': 'console.log(data.key);' };
    for (const shown of snippets) {
      const snippet = { ...shown, code: [shown.code, printKey[shown.label] ?? ''].join('\n') };
      const output = (await runSnippet(snippet)).trim();
      const key = shown.label === 'curl' ? (JSON.parse(output) as { data: { key: string } }).data.key : output;
      expect(key, `${shown.label} printed no key`).toMatch(/^\S{16,}$/);
      expect(await verified(key ?? '')).toBe(true);
    }
  });

  it('verify a key in each language, printing that it is valid', async () => {
    const created = await fetch(`${server.url}/v2/keys.createKey`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
      body: JSON.stringify({ apiId }),
    });
    const { key } = ((await created.json()) as { data: { key: string } }).data;
    const outputs = new Map<string, string>();
    for (const snippet of verifySnippetsFor(server.url, key)) outputs.set(snippet.label, await runSnippet(snippet));
    expect(JSON.parse(outputs.get('curl') ?? '')).toMatchObject({ data: { valid: true, code: 'VALID' } });
    expect(outputs.get('TypeScript')?.trim()).toBe('true VALID');
    expect(outputs.get('Unkey SDK')?.trim()).toBe('true VALID');
    expect(outputs.get('Python')?.trim()).toBe('True VALID');
  });
});
