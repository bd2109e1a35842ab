import { type ChangeLog, createChangeLog, listenForInvalidations } from '@keyplane/caches';
import type { Env } from '@keyplane/config';
import {
  bootstrapWorkspace,
  enableVault,
  issueRootKey,
  newSetupLink,
  revokeRootKey,
  setupLinkUrl,
} from '@keyplane/core';
import {
  createSetupLink,
  type EntityManager,
  findFirstWorkspace,
  listRootKeys,
  recordAuditEvent,
  rootKeyChangeStore,
  rootKeyStore,
  setWorkspaceApiRateLimit,
  workspaceExists,
  workspaceHasOwner,
  workspaceStore,
} from '@keyplane/db';
import type { Command } from './args.ts';
import { withDatabase } from './database.ts';
import { CommandError } from './errors.ts';
import { describeRootKeys, type RootKeyJson, toRootKeyJson } from './rootKeyListing.ts';

/** What a command prints: `json` with `--json`, `text` otherwise. */
export interface CommandOutput {
  json: Record<string, unknown>;
  text: string;
}

type DatabaseCommand = Exclude<Command, { name: 'help' }>;

export async function runCommand(command: DatabaseCommand, env: Env): Promise<CommandOutput> {
  switch (command.name) {
    case 'migrate':
      // withDatabase migrates before any command: all that is left is to say where the database stands.
      return withDatabase(env, { mayInitialise: true }, (em) => latestMigration(em));
    case 'bootstrap':
      return withDatabase(env, { mayInitialise: true }, (em) => bootstrap(em, command.workspaceName, env));
    case 'setup-link':
      return withDatabase(env, { mayInitialise: false }, (em) => setupLink(em, env));
    case 'root-keys create':
      return withDatabase(env, { mayInitialise: false }, (em) => createKey(em, command));
    case 'root-keys revoke':
      return withDatabase(env, { mayInitialise: false }, (em, databaseUrl) =>
        revokeKey(em, databaseUrl, command.rootKeyId),
      );
    case 'root-keys list':
      return withDatabase(env, { mayInitialise: false }, (em) => listKeys(em, command.workspaceId));
    case 'vault enable': {
      const masterKey = env.VAULT_MASTER_KEY;
      if (!masterKey) {
        throw new CommandError('VAULT_MASTER_KEY is not set: set it to the server’s master key (64 hex characters)');
      }
      return withDatabase(env, { mayInitialise: false }, (em) =>
        enableWorkspaceVault(em, command.workspaceId, masterKey),
      );
    }
    case 'rate-limit set':
      return withDatabase(env, { mayInitialise: false }, (em, databaseUrl) =>
        setRateLimit(em, databaseUrl, command.workspaceId, command.requestsPerMinute),
      );
    case 'rate-limit clear':
      return withDatabase(env, { mayInitialise: false }, (em, databaseUrl) =>
        setRateLimit(em, databaseUrl, command.workspaceId, null),
      );
  }
}

async function latestMigration(em: EntityManager): Promise<CommandOutput> {
  const [latest] = await em
    .getConnection()
    .execute<{ name: string }[]>('select name from mikro_orm_migrations order by id desc limit 1');
  const migration = latest?.name ?? null;
  return {
    json: { migration },
    text: lines(`The database is at the latest migration: ${migration ?? 'none'}.`),
  };
}

async function bootstrap(em: EntityManager, name: string, env: Env): Promise<CommandOutput> {
  const created = await em.transactional(async (tx) => {
    const bootstrapped = await bootstrapWorkspace(workspaceStore(tx), { name, masterKey: env.VAULT_MASTER_KEY });
    await recordCliChange(tx, bootstrapped.workspaceId, 'cli.bootstrap', { rootKeyId: bootstrapped.rootKeyId });
    return bootstrapped;
  });
  return {
    json: { workspaceId: created.workspaceId, rootKeyId: created.rootKeyId, rootKey: created.rootKey },
    text: lines(
      `Created workspace ${created.workspaceId} and a root key with every permission on it.`,
      '',
      `  workspace:   ${created.workspaceId}`,
      `  root key id: ${created.rootKeyId}`,
      `  root key:    ${created.rootKey}`,
      `  vault:       ${created.vault ? 'enabled' : 'off (set VAULT_MASTER_KEY, then run keyplane vault enable)'}`,
      '',
      'The root key is shown only this once: store it somewhere safe now.',
    ),
  };
}

/**
 * A new first-run setup link (account.setUpOwner), while the first workspace has no owner: once
 * it has one, that owner invites people, and a setup link would let its holder make another owner.
 */
async function setupLink(em: EntityManager, env: Env): Promise<CommandOutput> {
  const created = await em.transactional(async (tx) => {
    const workspace = await findFirstWorkspace(tx);
    if (!workspace) {
      throw new CommandError('there is no workspace yet: start the server (npm start) or run keyplane bootstrap first');
    }
    if (await workspaceHasOwner(tx, workspace.workspaceId)) {
      throw new CommandError(
        `workspace ${workspace.workspaceId} has an owner already: a setup link only creates the first one. ` +
          'Ask an owner or admin for an invitation (the Members screen), or a password reset if you lost yours.',
      );
    }
    const link = newSetupLink(Date.now());
    await createSetupLink(tx, link);
    await recordCliChange(tx, workspace.workspaceId, 'cli.setupLink', {});
    return { workspaceId: workspace.workspaceId, token: link.token, expiresAt: link.expiresAt };
  });
  const url = setupLinkUrl(env.PUBLIC_URL ?? `http://localhost:${env.PORT}`, created.token);
  return {
    json: { workspaceId: created.workspaceId, url, expiresAt: created.expiresAt },
    text: lines(
      `Open this link to create the owner of workspace ${created.workspaceId} (valid 24 hours, usable once):`,
      '',
      `  ${url}`,
    ),
  };
}

async function createKey(
  em: EntityManager,
  command: Extract<Command, { name: 'root-keys create' }>,
): Promise<CommandOutput> {
  await requireWorkspace(em, command.workspaceId);
  const created = await em.transactional(async (tx) => {
    const rootKey = await issueRootKey(rootKeyStore(tx), {
      workspaceId: command.workspaceId,
      name: command.keyName,
      permissions: command.permissions,
      expiresAt: command.expiresAt,
    });
    await recordCliChange(tx, command.workspaceId, 'cli.rootKeys.create', { rootKeyId: rootKey.rootKeyId });
    return rootKey;
  });
  return {
    json: { rootKeyId: created.rootKeyId, rootKey: created.rootKey },
    text: lines(
      `Created root key ${created.rootKeyId} in workspace ${command.workspaceId}.`,
      '',
      `  root key:    ${created.rootKey}`,
      `  permissions: ${command.permissions.length > 0 ? command.permissions.join(', ') : 'none'}`,
      `  expires:     ${command.expiresAt ? command.expiresAt.toISOString() : 'never'}`,
      '',
      'The root key is shown only this once: store it somewhere safe now.',
    ),
  };
}

/** How long a change waits for running servers to acknowledge it (their caches expire within 1 s anyway). */
const ACKNOWLEDGEMENT_WAIT_MS = 1000;

/**
 * Makes a change that running servers cache, with its audit entry, in one transaction, and returns
 * once every server has dropped what it cached, so the change holds everywhere by the time the
 * command says it is done.
 */
async function changeSeenByServers<T>(
  em: EntityManager,
  databaseUrl: string,
  change: (tx: EntityManager, changeLog: ChangeLog) => Promise<T>,
): Promise<T> {
  // Running servers acknowledge through notifications: listen for them.
  const listener = await listenForInvalidations(databaseUrl, { onChange: () => {}, onReset: () => {} });
  try {
    const changeLog = createChangeLog();
    const result = await em.transactional((tx) => change(tx, changeLog));
    if (changeLog.changes.length > 0) await listener.everyNodeCaughtUp(em, ACKNOWLEDGEMENT_WAIT_MS);
    return result;
  } finally {
    await listener.close();
  }
}

async function revokeKey(em: EntityManager, databaseUrl: string, rootKeyId: string): Promise<CommandOutput> {
  await changeSeenByServers(em, databaseUrl, async (tx, changeLog) => {
    const revoked = await revokeRootKey(rootKeyChangeStore(tx, changeLog), { rootKeyId });
    if (!revoked) throw new CommandError(`root key ${rootKeyId} not found`);
    await recordCliChange(tx, revoked.workspaceId, 'cli.rootKeys.revoke', { rootKeyId });
  });
  return {
    json: { rootKeyId, revoked: true },
    text: lines(`Revoked root key ${rootKeyId}: it no longer authenticates.`),
  };
}

async function listKeys(em: EntityManager, workspaceId: string): Promise<CommandOutput> {
  await requireWorkspace(em, workspaceId);
  const rootKeys = await listRootKeys(em, workspaceId);
  const json: { rootKeys: RootKeyJson[] } = { rootKeys: rootKeys.map(toRootKeyJson) };
  return { json, text: describeRootKeys(workspaceId, rootKeys) };
}

async function enableWorkspaceVault(em: EntityManager, workspaceId: string, masterKey: Buffer): Promise<CommandOutput> {
  await requireWorkspace(em, workspaceId);
  const outcome = await em.transactional(async (tx) => {
    const enabled = await enableVault(workspaceStore(tx), { workspaceId, masterKey });
    if (enabled === 'created') await recordCliChange(tx, workspaceId, 'cli.vault.enable', {});
    return enabled;
  });
  return {
    json: { workspaceId, vault: true },
    text: lines(
      outcome === 'created'
        ? `Enabled the vault of workspace ${workspaceId}: keys created with recoverable: true from now on can be decrypted later.`
        : `The vault of workspace ${workspaceId} was already enabled; its data key is unchanged.`,
    ),
  };
}

async function setRateLimit(
  em: EntityManager,
  databaseUrl: string,
  workspaceId: string,
  requestsPerMinute: number | null,
): Promise<CommandOutput> {
  await changeSeenByServers(em, databaseUrl, async (tx, changeLog) => {
    if (!(await setWorkspaceApiRateLimit(tx, changeLog, workspaceId, requestsPerMinute))) {
      throw new CommandError(`workspace ${workspaceId} not found`);
    }
    const event = requestsPerMinute === null ? 'cli.rateLimit.clear' : 'cli.rateLimit.set';
    await recordCliChange(tx, workspaceId, event, { workspaceId });
  });
  return {
    json: { workspaceId, requestsPerMinute },
    text: lines(
      requestsPerMinute === null
        ? `Removed the API rate limit of workspace ${workspaceId}.`
        : `Workspace ${workspaceId} may now make ${requestsPerMinute} API requests per minute.`,
    ),
  };
}

/**
 * Changes made from a terminal appear in the workspace's audit log too, with no root key as actor;
 * each command writes its entry in the transaction of its change, so neither lands without the other.
 */
function recordCliChange(em: EntityManager, workspaceId: string, event: string, resources: Record<string, string>) {
  return recordAuditEvent(em, { workspaceId, rootKeyId: null, event, resources });
}

async function requireWorkspace(em: EntityManager, workspaceId: string): Promise<void> {
  if (!(await workspaceExists(em, workspaceId))) throw new CommandError(`workspace ${workspaceId} not found`);
}

function lines(...text: string[]): string {
  return `${text.join('\n')}\n`;
}
