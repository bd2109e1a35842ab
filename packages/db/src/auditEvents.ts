import { newId } from '@keyplane/core';
import type { PageQuery } from './listing.ts';
import { type EntityManager, epochMs, rows, sql } from './sql.ts';

export interface AuditEntry {
  workspaceId: string;
  rootKeyId: string | null;
  /** The procedure that made the change, such as `keys.createKey`. */
  event: string;
  /** The ids the change named or produced, such as `{ apiId, keyId }`; never secrets. */
  resources: Record<string, string>;
}

export interface AuditEventRecord {
  id: string;
  time: number;
  rootKeyId: string | null;
  event: string;
  resources: Record<string, string>;
}

export async function recordAuditEvent(em: EntityManager, entry: AuditEntry): Promise<void> {
  await rows(
    em,
    sql`
      insert into audit_events (id, workspace_id, time, root_key_id, event, resources)
      values (${newId('auditEvent')}, ${entry.workspaceId}, now(), ${entry.rootKeyId}, ${entry.event},
              ${JSON.stringify(entry.resources)}::jsonb)`,
  );
}

/** Newest first: a page holds the rows with ids at or below the cursor. */
export async function listAuditEvents(
  em: EntityManager,
  workspaceId: string,
  query: Omit<PageQuery, 'search'>,
): Promise<AuditEventRecord[]> {
  return rows(
    em,
    sql<AuditEventRecord>`
      select id, ${epochMs('time')} as time, root_key_id as "rootKeyId", event, resources
      from audit_events
      where workspace_id = ${workspaceId} and ${query.fromId === undefined ? sql`true` : sql`id <= ${query.fromId}`}
      order by id desc
      limit ${query.count}`,
  );
}
