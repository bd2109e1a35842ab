import { randomBytes } from 'node:crypto';
import { newId } from '@keyplane/core';
import { type EntityManager, epochMs, rows, sql } from './sql.ts';

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
}

export async function createDashboardSession(
  em: EntityManager,
  session: { workspaceId: string; rootKeyId: string; tokenHash: string; expiresAt: number },
): Promise<string> {
  const sessionId = newId('session');
  await rows(
    em,
    sql`
      insert into dashboard_sessions (id, workspace_id, root_key_id, token_hash, created_at, expires_at)
      values (${sessionId}, ${session.workspaceId}, ${session.rootKeyId}, ${session.tokenHash}, now(),
              to_timestamp(${session.expiresAt} / 1000.0))`,
  );
  return sessionId;
}

/** The unexpired session with this token hash, with its root key as it is now. */
export async function findDashboardSession(
  em: EntityManager,
  tokenHash: string,
): Promise<DashboardSessionRecord | undefined> {
  const [found] = await rows(
    em,
    sql<DashboardSessionRecord>`
      select s.id as "sessionId", s.workspace_id as "workspaceId", r.id as "rootKeyId", r.name as "rootKeyName",
             r.permissions, ${epochMs('s.expires_at')} as "expiresAt",
             ${epochMs('r.expires_at')} as "rootKeyExpiresAt", ${epochMs('r.revoked_at')} as "rootKeyRevokedAt"
      from dashboard_sessions s
        join root_keys r on r.id = s.root_key_id
        join workspaces w on w.id = s.workspace_id
      where s.token_hash = ${tokenHash} and s.expires_at > now() and w.deleted_at is null`,
  );
  return found;
}

/** Ends the session (sign-out), and sweeps the expired ones while at it. */
export async function deleteDashboardSession(em: EntityManager, tokenHash: string): Promise<void> {
  await rows(em, sql`delete from dashboard_sessions where token_hash = ${tokenHash} or expires_at < now()`);
}

/**
 * The named secret every node shares, created with `bytes` random bytes by whichever node asks
 * first: concurrent first starts race on the primary key and all read the winner's value.
 */
export async function loadServerSecret(em: EntityManager, name: string, bytes: number): Promise<Uint8Array> {
  await rows(
    em,
    sql`insert into server_secrets (name, value, created_at) values (${name}, ${randomBytes(bytes)}, now())
        on conflict (name) do nothing`,
  );
  const [found] = await rows(em, sql<{ value: Buffer }>`select value from server_secrets where name = ${name}`);
  if (!found) throw new Error(`server secret ${name} could not be created`);
  return new Uint8Array(found.value);
}
