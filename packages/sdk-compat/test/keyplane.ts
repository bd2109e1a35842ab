import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createKeyMigration } from '@keyplane/db';
import { Unkey } from '@unkey/api';
import { afterAll, beforeAll } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../../apps/api/test/serverProcess.ts';

const CLI_ENTRY = fileURLToPath(new URL('../../../apps/cli/src/main.ts', import.meta.url));
/** A fixed vault master key (32 bytes), so that recoverable keys can be created. */
const VAULT_MASTER_KEY = '22'.repeat(32);

export interface Keyplane {
  /** The server's base URL, what the SDKs take as `serverURL` / `baseUrl`. */
  url: string;
  workspaceId: string;
  /** A root key holding every permission. */
  rootKey: string;
  /** `@unkey/api` pointed at this server with the all-permission root key. */
  unkey: Unkey;
  /** `@unkey/api` with a new root key of this workspace holding exactly these permissions. */
  unkeyWith(permissions: string[]): Promise<Unkey>;
  /** `@unkey/api` with the root key of another workspace whose API rate limit is 0: every call is a 429. */
  unkeyOfRateLimitedWorkspace(): Promise<Unkey>;
  /** Runs the admin CLI on this server's database, as an operator would, and returns its JSON output. */
  cli(args: string[]): Promise<Record<string, unknown>>;
  /** Registers a key migration for the workspace, as support does (there is no procedure for it). */
  createKeyMigration(): Promise<string>;
  /**
   * POST to a path with the all-permission root key, as plain HTTP: for Keyplane's own procedures the
   * SDK does not know (`/v2/apis.updateApi`, the internal `/trpc/ratelimit.deleteNamespace`).
   */
  post(path: string, body: unknown): Promise<Response>;
}

/**
 * Per test file: a Keyplane server process on a database of its own, with a workspace created by the
 * admin CLI (`keyplane bootstrap`) before the server starts, as an operator would set one up.
 */
export function useKeyplane(): Keyplane {
  let server: ServerProcess | undefined;
  let workspace: { workspaceId: string; rootKey: string } | undefined;
  let unkey: Unkey | undefined;
  const ready = () => {
    if (!server || !workspace || !unkey) throw new Error('useKeyplane() is used before its beforeAll ran');
    return { server, workspace, unkey };
  };

  const cli = (args: string[]) => runCli(args, { DATABASE_URL: ready().server.database.url, VAULT_MASTER_KEY });

  beforeAll(async () => {
    let bootstrapped: { workspaceId: string; rootKey: string } | undefined;
    server = await startServerProcess({ VAULT_MASTER_KEY }, async (databaseUrl) => {
      const created = await runCli(['bootstrap', '--name', 'sdk-compat'], {
        DATABASE_URL: databaseUrl,
        VAULT_MASTER_KEY,
      });
      bootstrapped = { workspaceId: String(created.workspaceId), rootKey: String(created.rootKey) };
    });
    if (bootstrapped === undefined) throw new Error('keyplane bootstrap created no workspace');
    workspace = bootstrapped;
    unkey = new Unkey({ serverURL: server.url, rootKey: workspace.rootKey });
  });
  afterAll(async () => {
    await server?.stop();
  });

  return {
    get url() {
      return ready().server.url;
    },
    get workspaceId() {
      return ready().workspace.workspaceId;
    },
    get rootKey() {
      return ready().workspace.rootKey;
    },
    get unkey() {
      return ready().unkey;
    },
    async unkeyWith(permissions) {
      const permissionArgs = permissions.flatMap((permission) => ['--permission', permission]);
      const created = await cli([
        'root-keys',
        'create',
        '--workspace',
        ready().workspace.workspaceId,
        ...permissionArgs,
      ]);
      return new Unkey({ serverURL: ready().server.url, rootKey: String(created.rootKey) });
    },
    async unkeyOfRateLimitedWorkspace() {
      const created = await cli(['bootstrap', '--name', 'rate-limited']);
      await cli(['rate-limit', 'set', String(created.workspaceId), '--per-minute', '0']);
      return new Unkey({ serverURL: ready().server.url, rootKey: String(created.rootKey) });
    },
    cli,
    createKeyMigration: () => createKeyMigration(ready().server.database.orm.em.fork(), ready().workspace.workspaceId),
    post: (path, body) =>
      fetch(`${ready().server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ready().workspace.rootKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
  };
}

async function runCli(args: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI_ENTRY, ...args, '--json'], { env });
  return JSON.parse(stdout) as Record<string, unknown>;
}
