import { randomBytes } from 'node:crypto';
import { newId } from '@keyplane/core';
import { type EntityManager, epochMs, sql, typed, unixMs } from './sql.ts';

export interface DashboardSessionRecord {
  sessionId: string;
  workspaceId: string;
  rootKeyId: string;
  rootKeyName: string | null;
  permissions: string[];
  expiresAt: number;
  /** The root key's own state: a session lasts no longer than the key it was opened with. */
  rootKeyExpiresAt: number | null;
  rootKeyRevokedAt: number | null;
  /** The workspace's API rate limit per minute, which the session is held to as its root key is; null: none. */
  apiRequestsPerMinute: number | null;
}

export async function createDashboardSession(
  em: EntityManager,
  session: { workspaceId: string; rootKeyId: string; tokenHash: string; expiresAt: number },
): Promise<string> {
  const sessionId = newId('session');
  await typed(em)
    .insertInto('dashboard_sessions')
    .values({
      id: sessionId,
      workspace_id: session.workspaceId,
      root_key_id: session.rootKeyId,
      token_hash: session.tokenHash,
      created_at: sql`now()`,
      expires_at: new Date(session.expiresAt),
    })
    .execute();
  return sessionId;
}

/** The unexpired session with this token hash, with its root key as it is now. */
export async function findDashboardSession(
  em: EntityManager,
  tokenHash: string,
): Promise<DashboardSessionRecord | undefined> {
  const found = await typed(em)
    .selectFrom('dashboard_sessions as s')
    .innerJoin('root_keys as r', 'r.id', 's.root_key_id')
    .innerJoin('workspaces as w', 'w.id', 's.workspace_id')
    .select([
      's.id',
      's.workspace_id',
      's.expires_at',
      'r.name',
      'r.permissions',
      'r.revoked_at',
      'r.id as root_key_id',
      'w.api_requests_per_minute',
    ])
    // Under another name a timestamp is not converted to a Date: this one is read as milliseconds.
    .select(epochMs('r.expires_at').as('root_key_expires_at'))
    .where('s.token_hash', '=', tokenHash)
    .where('s.expires_at', '>', sql<Date>`now()`)
    .where('w.deleted_at', 'is', null)
    .executeTakeFirst();
  return (
    found && {
      sessionId: found.id,
      workspaceId: found.workspace_id,
      rootKeyId: found.root_key_id,
      rootKeyName: found.name,
      permissions: found.permissions,
      expiresAt: found.expires_at.getTime(),
      rootKeyExpiresAt: found.root_key_expires_at,
      rootKeyRevokedAt: unixMs(found.revoked_at),
      apiRequestsPerMinute: found.api_requests_per_minute,
    }
  );
}

/** Ends the session (sign-out), and sweeps the expired ones while at it. */
export async function deleteDashboardSession(em: EntityManager, tokenHash: string): Promise<void> {
  await typed(em)
    .deleteFrom('dashboard_sessions')
    .where((eb) => eb.or([eb('token_hash', '=', tokenHash), eb('expires_at', '<', sql<Date>`now()`)]))
    .execute();
}

/**
 * The named secret every node shares, created with `bytes` random bytes by whichever node asks
 * first: concurrent first starts race on the primary key and all read the winner's value.
 */
export async function loadServerSecret(em: EntityManager, name: string, bytes: number): Promise<Uint8Array> {
  await typed(em)
    .insertInto('server_secrets')
    .values({ name, value: randomBytes(bytes), created_at: sql`now()` })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .execute();
  const found = await typed(em)
    .selectFrom('server_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirst();
  if (!found) throw new Error(`server secret ${name} could not be created`);
  return new Uint8Array(found.value);
}
