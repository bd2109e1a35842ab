import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listenForInvalidations } from '@keyplane/caches';
import { allRootKeyPermissions, type Bootstrapped, bootstrapWorkspace, hashKey } from '@keyplane/core';
import { findRootKeyByHash, listAuditEvents, rows, sql, workspaceStore } from '@keyplane/db';
import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { createEmptyDatabase } from '@keyplane/testing';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type CommandLine, parseCommandLine } from '../src/args.ts';
import { UsageError } from '../src/errors.ts';
import { USAGE } from '../src/usage.ts';

const CLI_ENTRY = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const MASTER_KEY = 'ab'.repeat(32);
const MIGRATIONS_DIR = fileURLToPath(new URL('../../../packages/db/migrations', import.meta.url));

interface CliRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

let db: TestDatabase;
/** Node's compile cache, shared by the spawned runs: each compiles the CLI's modules once, not once per run. */
let compileCache: string;

beforeAll(async () => {
  db = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
  compileCache = mkdtempSync(join(tmpdir(), 'keyplane-cli-test-'));
});

afterAll(async () => {
  await db?.drop();
  if (compileCache) rmSync(compileCache, { recursive: true, force: true });
});

/** Runs the real CLI in a child process with only the environment given here. */
function keyplane(args: string[], extraEnv: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
      env: { HOME: tmpdir(), DATABASE_URL: db.url, NODE_COMPILE_CACHE: compileCache, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode, stdout, stderr }));
  });
}

/** The single JSON object a successful `--json` run prints, and nothing else. */
function jsonOutput<TOutput extends object>(run: CliRun): TOutput {
  expect(run.stderr).toBe('');
  expect(run.exitCode).toBe(0);
  expect(run.stdout.endsWith('\n')).toBe(true);
  expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout) as TOutput;
}

function expectOneLineError(run: CliRun, exitCode: number) {
  expect(run.exitCode).toBe(exitCode);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(/^keyplane: [^\n]+\n$/);
}

function newWorkspace(): Promise<Bootstrapped> {
  return db.orm.em.fork().transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: 'cli-test' }));
}

async function listedRootKeys(workspaceId: string) {
  const listed = jsonOutput<{ rootKeys: Record<string, unknown>[] }>(
    await keyplane(['root-keys', 'list', '--workspace', workspaceId, '--json']),
  );
  return listed.rootKeys;
}

describe('setup-link', () => {
  it('prints a new one-time link to the setup page while the first workspace has no owner, then refuses', async () => {
    const own = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
    try {
      const env = { DATABASE_URL: own.url, PUBLIC_URL: 'https://keyplane.example.test/' };
      const none = await keyplane(['setup-link'], env);
      expectOneLineError(none, 1);
      expect(none.stderr).toMatch(/no workspace yet/);
      const first = jsonOutput<Bootstrapped>(await keyplane(['bootstrap', '--json'], env));
      const printed = jsonOutput<{ workspaceId: string; url: string; expiresAt: number }>(
        await keyplane(['setup-link', '--json'], env),
      );
      expect(printed.workspaceId).toBe(first.workspaceId);
      expect(printed.url).toMatch(/^https:\/\/keyplane\.example\.test\/dashboard\/setup#[A-Za-z0-9_-]{43}$/);
      expect(printed.expiresAt).toBeGreaterThan(Date.now() + 23 * 60 * 60 * 1000);
      const token = printed.url.split('#')[1] ?? '';
      const [stored] = await rows<{ used_at: Date | null }>(
        own.orm.em.fork(),
        sql`select used_at from setup_links where token_hash = ${hashKey(token)}`,
      );
      expect(stored).toEqual({ used_at: null });
      const text = await keyplane(['setup-link'], env);
      expect(text.stdout).toMatch(/^Open this link .*\n\n  https:\/\/keyplane\.example\.test\/dashboard\/setup#\S+\n$/);

      await rows(
        own.orm.em.fork(),
        sql`with u as (insert into users (id, email, name, created_at) values ('user_cli', 'o@example.test', 'O', now()) returning id)
            insert into memberships (workspace_id, user_id, role, created_at) select ${first.workspaceId}, id, 'owner', now() from u`,
      );
      const refused = await keyplane(['setup-link'], env);
      expectOneLineError(refused, 1);
      expect(refused.stderr).toMatch(/has an owner already.*invitation/);
    } finally {
      await own.drop();
    }
  });
});

describe('migrate', () => {
  it('brings an empty database to the latest migration, and says so again when run twice', async () => {
    const empty = await createEmptyDatabase(inject('databaseUrl'));
    try {
      const latest = readdirSync(MIGRATIONS_DIR)
        .filter((file) => file.endsWith('.ts'))
        .map((file) => file.replace(/\.ts$/, ''))
        .sort()
        .at(-1);
      for (let run = 0; run < 2; run++) {
        const migrated = await keyplane(['migrate', '--json'], { DATABASE_URL: empty.url });
        expect(migrated.exitCode).toBe(0);
        expect(jsonOutput(migrated)).toEqual({ migration: latest });
      }
      const text = await keyplane(['migrate'], { DATABASE_URL: empty.url });
      expect(text.stdout).toBe(`The database is at the latest migration: ${latest}.\n`);
    } finally {
      await empty.drop();
    }
  });
});

describe('bootstrap', () => {
  it('prints one JSON object with a new workspace and a root key holding every permission', async () => {
    const output = jsonOutput<Omit<Bootstrapped, 'vault'>>(await keyplane(['bootstrap', '--name', 'acme', '--json']));

    expect(Object.keys(output).sort()).toEqual(['rootKey', 'rootKeyId', 'workspaceId']);
    const { workspaceId, rootKeyId, rootKey } = output;
    const found = await findRootKeyByHash(db.orm.em.fork(), hashKey(rootKey));
    expect(found).toMatchObject({ id: rootKeyId, workspaceId, revokedAt: null, expiresAt: null });
    expect(found?.permissions.sort()).toEqual(allRootKeyPermissions().sort());
  });

  it('prints the root key with a warning in text mode', async () => {
    const run = await keyplane(['bootstrap']);

    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/workspace: +ws_\w+/);
    expect(run.stdout).toMatch(/root key: +kproot_\w+/);
    expect(run.stdout).toContain('shown only this once');
  });
});

describe('root-keys create and list', () => {
  it('creates a key that authenticates, stores only its hash and is listed as created', async () => {
    const { workspaceId } = await newWorkspace();
    const expires = Date.now() + 86_400_000;
    const permissions = ['api.*.create_key', 'api.api_123.read_key'];

    const created = jsonOutput<{ rootKeyId: string; rootKey: string }>(
      await keyplane([
        'root-keys',
        'create',
        '--workspace',
        workspaceId,
        '--name',
        'ci',
        ...permissions.flatMap((permission) => ['--permission', permission]),
        '--expires',
        String(expires),
        '--json',
      ]),
    );

    expect(Object.keys(created).sort()).toEqual(['rootKey', 'rootKeyId']);
    const { rootKeyId, rootKey } = created;
    const em = db.orm.em.fork();
    expect(await findRootKeyByHash(em, hashKey(rootKey))).toMatchObject({ id: rootKeyId, workspaceId, permissions });
    const [plaintextRows] = await rows(
      em,
      sql<{ count: number }>`select count(*)::int as count from root_keys r where strpos(r::text, ${rootKey}) > 0`,
    );
    expect(plaintextRows?.count).toBe(0);

    const [bootstrapKey, listed] = await listedRootKeys(workspaceId);
    expect(bootstrapKey).not.toHaveProperty('expires');
    expect(listed).toEqual({
      rootKeyId,
      name: 'ci',
      start: rootKey.slice(0, 'kproot_'.length + 4),
      permissions,
      createdAt: expect.any(Number),
      expires,
    });
  });

  it('fails with exit code 1 for a workspace that does not exist', async () => {
    expectOneLineError(await keyplane(['root-keys', 'list', '--workspace', 'ws_missing', '--json']), 1);
  });
});

describe('root-keys revoke', () => {
  it('revokes a key, which the listing then shows as revoked', async () => {
    const { workspaceId, rootKeyId } = await newWorkspace();

    expect(jsonOutput(await keyplane(['root-keys', 'revoke', rootKeyId, '--json']))).toEqual({
      rootKeyId,
      revoked: true,
    });
    const [listed] = await listedRootKeys(workspaceId);
    expect(listed).toMatchObject({ rootKeyId, revokedAt: expect.any(Number) });
  });

  it('returns only once a running server has dropped the key from its cache', async () => {
    const { rootKeyId, rootKey } = await newWorkspace();
    const handled: string[] = [];
    const server = await listenForInvalidations(db.url, {
      onChange: (change) => handled.push(...(change.rootKeyHashes ?? [])),
      onReset: () => {},
    });
    try {
      const run = await keyplane(['root-keys', 'revoke', rootKeyId, '--json']);
      // Read at once: the command has exited, so the server must already have handled the revocation.
      const handledWhenDone = [...handled];
      expect(jsonOutput(run)).toEqual({ rootKeyId, revoked: true });
      expect(handledWhenDone).toEqual([hashKey(rootKey)]);
    } finally {
      await server.close();
    }
  });

  it("records root-key changes in the workspace's audit log, with no root key as actor", async () => {
    const { workspaceId, rootKeyId } = await newWorkspace();
    const created = jsonOutput<{ rootKeyId: string }>(
      await keyplane(['root-keys', 'create', '--workspace', workspaceId, '--permission', 'api.*.read_api', '--json']),
    );
    await keyplane(['root-keys', 'revoke', rootKeyId, '--json']);
    const audited = await listAuditEvents(db.orm.em.fork(), workspaceId, { count: 10 });
    expect(audited.map(({ rootKeyId: actor, event, resources }) => ({ actor, event, resources }))).toEqual([
      { actor: null, event: 'cli.rootKeys.revoke', resources: { rootKeyId } },
      { actor: null, event: 'cli.rootKeys.create', resources: { rootKeyId: created.rootKeyId } },
    ]);
  });

  it('fails with exit code 1 for an unknown root key', async () => {
    expectOneLineError(await keyplane(['root-keys', 'revoke', 'rk_missing', '--json']), 1);
  });
});

describe('vault enable', () => {
  it('stores a data key for the workspace', async () => {
    const { workspaceId } = await newWorkspace();

    const run = await keyplane(['vault', 'enable', workspaceId, '--json'], { VAULT_MASTER_KEY: MASTER_KEY });

    expect(jsonOutput(run)).toEqual({ workspaceId, vault: true });
    const [vaultKeys] = await rows(
      db.orm.em.fork(),
      sql<{ count: number }>`select count(*)::int as count from vault_keys where workspace_id = ${workspaceId}`,
    );
    expect(vaultKeys?.count).toBe(1);
  });

  it('fails with exit code 1 without VAULT_MASTER_KEY', async () => {
    const { workspaceId } = await newWorkspace();

    const run = await keyplane(['vault', 'enable', workspaceId, '--json']);

    expectOneLineError(run, 1);
    expect(run.stderr).toContain('VAULT_MASTER_KEY');
  });
});

describe('rate-limit set and clear', () => {
  const storedLimit = async (workspaceId: string) => {
    const [row] = await rows(
      db.orm.em.fork(),
      sql<{ limit: number | null }>`select api_requests_per_minute as limit from workspaces where id = ${workspaceId}`,
    );
    return row?.limit;
  };

  it("sets the workspace's API rate limit, which its root keys then carry, and clears it", async () => {
    const { workspaceId, rootKey } = await newWorkspace();

    const set = await keyplane(['rate-limit', 'set', workspaceId, '--per-minute', '120', '--json']);

    expect(jsonOutput(set)).toEqual({ workspaceId, requestsPerMinute: 120 });
    expect(await findRootKeyByHash(db.orm.em.fork(), hashKey(rootKey))).toMatchObject({ apiRequestsPerMinute: 120 });
    expect(jsonOutput(await keyplane(['rate-limit', 'clear', workspaceId, '--json']))).toEqual({
      workspaceId,
      requestsPerMinute: null,
    });
    expect(await storedLimit(workspaceId)).toBeNull();
    const audited = await listAuditEvents(db.orm.em.fork(), workspaceId, { count: 10 });
    expect(audited.slice(0, 2).map(({ event, resources }) => ({ event, resources }))).toEqual([
      { event: 'cli.rateLimit.clear', resources: { workspaceId } },
      { event: 'cli.rateLimit.set', resources: { workspaceId } },
    ]);
  });

  it('accepts 0, which refuses every request', async () => {
    const { workspaceId } = await newWorkspace();

    expect(jsonOutput(await keyplane(['rate-limit', 'set', workspaceId, '--per-minute', '0', '--json']))).toEqual({
      workspaceId,
      requestsPerMinute: 0,
    });
    expect(await storedLimit(workspaceId)).toBe(0);
  });

  it("returns only once a running server has dropped the workspace's cached root keys", async () => {
    const { workspaceId } = await newWorkspace();
    const handled: (string | undefined)[] = [];
    const server = await listenForInvalidations(db.url, {
      onChange: (change) => handled.push(change.workspaceId),
      onReset: () => {},
    });
    try {
      const run = await keyplane(['rate-limit', 'set', workspaceId, '--per-minute', '5', '--json']);
      const handledWhenDone = [...handled];
      expect(jsonOutput(run)).toEqual({ workspaceId, requestsPerMinute: 5 });
      expect(handledWhenDone).toEqual([workspaceId]);
    } finally {
      await server.close();
    }
  });

  it('fails with exit code 1 for a workspace that does not exist, and changes nothing', async () => {
    const run = await keyplane(['rate-limit', 'set', 'ws_missing', '--per-minute', '5', '--json']);

    expectOneLineError(run, 1);
    expect(run.stderr).toContain('ws_missing');
  });
});

describe('a change whose audit entry cannot be written', () => {
  /** Has PostgreSQL refuse audit entries of this event while `run` runs. */
  async function withAuditRefused<T>(event: string, run: () => Promise<T>): Promise<T> {
    const em = db.orm.em.fork();
    await rows(
      em,
      sql`create function refuse_cli_audit() returns trigger language plpgsql as $$
            begin raise exception 'audit entry refused'; end $$`,
    );
    await rows(
      em,
      sql`create trigger refuse_cli_audit before insert on audit_events for each row
          when (new.event = ${sql.lit(event)}) execute function refuse_cli_audit()`,
    );
    try {
      return await run();
    } finally {
      await rows(em, sql`drop function refuse_cli_audit() cascade`);
    }
  }

  async function countRows(table: string, column: string, value: string): Promise<number | undefined> {
    const [found] = await rows(
      db.orm.em.fork(),
      sql<{
        count: number;
      }>`select count(*)::int as count from ${sql.table(table)} where ${sql.ref(column)} = ${value}`,
    );
    return found?.count;
  }

  it('bootstrap fails and leaves no workspace behind', async () => {
    const name = `refused-${Date.now()}`;
    const run = await withAuditRefused('cli.bootstrap', () => keyplane(['bootstrap', '--name', name, '--json']));
    expectOneLineError(run, 1);
    expect(await countRows('workspaces', 'name', name)).toBe(0);
  });

  it('root-keys create fails and leaves no root key behind', async () => {
    const { workspaceId } = await newWorkspace();
    const run = await withAuditRefused('cli.rootKeys.create', () =>
      keyplane(['root-keys', 'create', '--workspace', workspaceId, '--json']),
    );
    expectOneLineError(run, 1);
    expect(await countRows('root_keys', 'workspace_id', workspaceId)).toBe(1);
  });

  it('root-keys revoke fails and leaves the key working', async () => {
    const { rootKeyId, rootKey } = await newWorkspace();
    const run = await withAuditRefused('cli.rootKeys.revoke', () =>
      keyplane(['root-keys', 'revoke', rootKeyId, '--json']),
    );
    expectOneLineError(run, 1);
    expect((await findRootKeyByHash(db.orm.em.fork(), hashKey(rootKey)))?.revokedAt).toBeNull();
  });

  it('vault enable fails and leaves the workspace without a data key', async () => {
    const { workspaceId } = await newWorkspace();
    const run = await withAuditRefused('cli.vault.enable', () =>
      keyplane(['vault', 'enable', workspaceId, '--json'], { VAULT_MASTER_KEY: MASTER_KEY }),
    );
    expectOneLineError(run, 1);
    expect(await countRows('vault_keys', 'workspace_id', workspaceId)).toBe(0);
  });

  it('rate-limit set fails and leaves the workspace without a limit', async () => {
    const { workspaceId, rootKey } = await newWorkspace();
    const run = await withAuditRefused('cli.rateLimit.set', () =>
      keyplane(['rate-limit', 'set', workspaceId, '--per-minute', '5', '--json']),
    );
    expectOneLineError(run, 1);
    expect((await findRootKeyByHash(db.orm.em.fork(), hashKey(rootKey)))?.apiRequestsPerMinute).toBeNull();
  });
});

/**
 * Parses a line in this process, as runCli does before it touches the database: a UsageError is
 * what cli.ts prints as one line on stderr with exit code 2 (the spawned cases below prove that).
 * The parser itself must print nothing.
 */
function parseInProcess(args: string[]): CommandLine | UsageError {
  const stdout = vi.spyOn(process.stdout, 'write');
  const stderr = vi.spyOn(process.stderr, 'write');
  try {
    return parseCommandLine(args);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  } finally {
    const written = [...stdout.mock.calls, ...stderr.mock.calls];
    stdout.mockRestore();
    stderr.mockRestore();
    expect(written).toEqual([]);
  }
}

describe('bad arguments', () => {
  it.each([
    ['no command at all', [], 'missing command'],
    ['only options', ['--json'], 'missing command'],
    ['an unknown command', ['keys', 'list', '--json'], '"keys"'],
    ['an unknown subcommand', ['root-keys', 'delete', 'rk_x'], '"root-keys delete"'],
    ['a command group without its subcommand', ['rate-limit', '--json'], 'rate-limit needs one of: set, clear'],
    ['an unknown option', ['bootstrap', '--force', '--json'], '--force'],
    ['an unknown option before the command', ['--force', 'migrate'], '--force'],
    ["another command's option", ['bootstrap', '--workspace', 'ws_x'], '--workspace'],
    ['a misspelt option', ['bootstrap', '--nam', 'acme'], '--nam'],
    ['a value for --json', ['bootstrap', '--json=yes'], '--json'],
    ['a missing --workspace', ['root-keys', 'list', '--json'], '--workspace'],
    ['an empty --workspace', ['root-keys', 'list', '--workspace='], '--workspace'],
    ['--workspace without its value at the end', ['root-keys', 'list', '--workspace'], '--workspace'],
    ['--workspace followed by another option', ['root-keys', 'list', '--workspace', '--json'], '--workspace'],
    ['--name followed by an unknown option', ['bootstrap', '--name', '-x'], '--name'],
    ['--workspace given twice', ['root-keys', 'list', '--workspace', 'ws_a', '--workspace', 'ws_b'], '--workspace'],
    ['--name given twice', ['bootstrap', '--name', 'a', '--name', 'b'], '--name'],
    ['a blank --name', ['bootstrap', '--name', ' '], '--name'],
    ['a --name beyond the column', ['bootstrap', '--name', 'n'.repeat(256)], '--name'],
    [
      'a permission that cannot be granted',
      ['root-keys', 'create', '--workspace', 'ws_x', '--permission', 'api.*.fly'],
      '"api.*.fly"',
    ],
    [
      'a bad permission after a good one',
      ['root-keys', 'create', '--workspace', 'ws_x', '--permission', 'api.*.read_api', '--permission', 'nope'],
      '"nope"',
    ],
    [
      '--expires that is not integer milliseconds',
      ['root-keys', 'create', '--workspace', 'ws_x', '--expires', '1e12'],
      '"1e12"',
    ],
    ['a negative --expires', ['root-keys', 'create', '--workspace', 'ws_x', '--expires=-1'], '"-1"'],
    ['an empty --expires', ['root-keys', 'create', '--workspace', 'ws_x', '--expires='], '""'],
    [
      '--expires beyond what a date holds',
      ['root-keys', 'create', '--workspace', 'ws_x', '--expires', '8640000000000001'],
      '"8640000000000001"',
    ],
    [
      '--expires given twice',
      ['root-keys', 'create', '--workspace', 'ws_x', '--expires', '1', '--expires', '2'],
      '--expires',
    ],
    ['a rate limit without --per-minute', ['rate-limit', 'set', 'ws_x'], '--per-minute'],
    ['a negative rate limit', ['rate-limit', 'set', 'ws_x', '--per-minute=-1'], '"-1"'],
    ['a fractional rate limit', ['rate-limit', 'set', 'ws_x', '--per-minute', '1.5'], '"1.5"'],
    ['a rate limit beyond the column', ['rate-limit', 'set', 'ws_x', '--per-minute', '2147483648'], '"2147483648"'],
    ['a rate limit with no workspace', ['rate-limit', 'clear'], 'WORKSPACE_ID'],
    ['a revocation with no root key', ['root-keys', 'revoke'], 'root-keys revoke'],
    ['an empty root key id', ['root-keys', 'revoke', ''], 'ROOT_KEY_ID'],
    ['an extra argument', ['vault', 'enable', 'ws_a', 'ws_b'], 'ws_b'],
    ['an argument to a command that takes none', ['migrate', 'now'], 'now'],
  ])('are refused with one line naming the problem for %s', (_, args, named) => {
    const refused = parseInProcess(args);

    expect(refused).toBeInstanceOf(UsageError);
    expect(refused).toMatchObject({ message: expect.stringMatching(/^[^\n]+$/) });
    expect(refused).toMatchObject({ message: expect.stringContaining(named) });
  });

  it.concurrent.each([
    ['an unknown command', ['keys', 'list', '--json'], '"keys"'],
    ['an unknown option', ['bootstrap', '--force', '--json'], '--force'],
    ['a missing argument', ['rate-limit', 'clear', '--json'], 'WORKSPACE_ID'],
    ['a value the command cannot take', ['root-keys', 'create', '--workspace', 'ws_x', '--expires', '1e12'], '"1e12"'],
  ])('exit with code 2 and one line on stderr naming the problem in a real process for %s', async (_, args, named) => {
    const run = await keyplane(args);

    expectOneLineError(run, 2);
    expect(run.stderr).toContain(named);
  });
});

describe('arguments', () => {
  it.each([
    [['migrate'], { name: 'migrate' }],
    [['bootstrap'], { name: 'bootstrap', workspaceName: 'default' }],
    [['bootstrap', '--name=-dash-'], { name: 'bootstrap', workspaceName: '-dash-' }],
    [['setup-link'], { name: 'setup-link' }],
    [['root-keys', 'revoke', 'rk_1'], { name: 'root-keys revoke', rootKeyId: 'rk_1' }],
    [['root-keys', 'revoke', '--', '-rk'], { name: 'root-keys revoke', rootKeyId: '-rk' }],
    [['root-keys', 'list', '--workspace=ws_1'], { name: 'root-keys list', workspaceId: 'ws_1' }],
    [['vault', 'enable', 'ws_1'], { name: 'vault enable', workspaceId: 'ws_1' }],
    [
      ['rate-limit', 'set', '--per-minute', '0', 'ws_1'],
      { name: 'rate-limit set', workspaceId: 'ws_1', requestsPerMinute: 0 },
    ],
    [['rate-limit', 'clear', 'ws_1'], { name: 'rate-limit clear', workspaceId: 'ws_1' }],
  ])('%j is read as its command', (args, command) => {
    expect(parseInProcess(args)).toEqual({ command, json: false });
  });

  it('reads every option of root-keys create, --permission as often as it is given, and --json anywhere', () => {
    const parsed = parseInProcess([
      '--json',
      'root-keys',
      'create',
      '--permission',
      'api.*.create_key',
      '--workspace',
      'ws_1',
      '--permission=api.api_123.read_key',
      '--name',
      'ci',
      '--expires',
      '8640000000000000',
    ]);

    expect(parsed).toEqual({
      command: {
        name: 'root-keys create',
        workspaceId: 'ws_1',
        keyName: 'ci',
        permissions: ['api.*.create_key', 'api.api_123.read_key'],
        expiresAt: new Date(8.64e15),
      },
      json: true,
    });
    expect(parseInProcess(['root-keys', 'create', '--workspace', 'ws_1', '--json'])).toEqual({
      command: { name: 'root-keys create', workspaceId: 'ws_1', permissions: [] },
      json: true,
    });
  });
});

describe('help', () => {
  it.each([[['--help']], [['-h']], [['help']], [['help', 'root-keys']], [['root-keys', 'create', '--help']]])(
    '%j asks for help',
    (args) => {
      expect(parseInProcess(args)).toEqual({ command: { name: 'help' }, json: false });
    },
  );

  it('prints the usage on stdout', async () => {
    const run = await keyplane(['--help']);

    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(USAGE);
  });
});
