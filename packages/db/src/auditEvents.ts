import { newId } from '@keyplane/core';
import type { PageQuery } from './listing.ts';
import { type EntityManager, sql, typed } from './sql.ts';

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
  await typed(em)
    .insertInto('audit_events')
    .values({
      id: newId('auditEvent'),
      workspace_id: entry.workspaceId,
      time: sql`now()`,
      root_key_id: entry.rootKeyId,
      event: entry.event,
      resources: entry.resources,
    })
    .execute();
}

/** Newest first: a page holds the rows with ids at or below the cursor. */
export async function listAuditEvents(
  em: EntityManager,
  workspaceId: string,
  query: Omit<PageQuery, 'search'>,
): Promise<AuditEventRecord[]> {
  let events = typed(em)
    .selectFrom('audit_events')
    .select(['id', 'time', 'root_key_id', 'event', 'resources'])
    .where('workspace_id', '=', workspaceId);
  if (query.fromId !== undefined) events = events.where('id', '<=', query.fromId);
  const found = await events.orderBy('id', 'desc').limit(query.count).execute();
  return found.map((event) => ({
    id: event.id,
    time: event.time.getTime(),
    rootKeyId: event.root_key_id,
    event: event.event,
    resources: event.resources,
  }));
}
