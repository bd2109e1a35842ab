import { newId, type RatelimitOverrideRule } from '@keyplane/core';
import { containsAny, type PageQuery, startingAt } from './listing.ts';
import { type EntityManager, epochMs, rows, sql } from './sql.ts';

/** A namespace of the workspace, deleted ones included: limiting answers 410 for those. */
export interface RatelimitNamespaceRecord {
  id: string;
  name: string;
  deleted: boolean;
}

/** What one `ratelimit.limit` check needs from the database. */
export interface RatelimitTarget {
  /** Undefined when the workspace has no namespace with this id or name. */
  namespace: RatelimitNamespaceRecord | undefined;
  /** The live overrides that could apply to the identifier: its exact one and every wildcard pattern. */
  overrides: RatelimitOverrideRule[];
}

export interface RatelimitTargetQuery {
  /** The namespace's id or name. */
  namespace: string;
  identifier: string;
}

/**
 * The workspace's namespace named by `namespace`, its id or its name. A name may look like
 * another namespace's id: the id wins, so a lookup never matches two rows.
 */
const namespaceNamed = (workspaceId: string, namespace: ReturnType<typeof sql.ref> | string) => sql<{
  id: string;
  name: string;
  deleted_at: string | null;
}>`
  select id, name, deleted_at from ratelimit_namespaces
  where workspace_id = ${workspaceId} and (id = ${namespace} or name = ${namespace})
  order by id = ${namespace} desc
  limit 1`;

/**
 * For each check, in order, its namespace and the overrides that may apply, in one statement:
 * the request path of `ratelimit.limit` reads overrides fresh on every call, so a changed override
 * holds for the next request on every node.
 */
export async function findRatelimitTargets(
  em: EntityManager,
  workspaceId: string,
  queries: readonly RatelimitTargetQuery[],
): Promise<RatelimitTarget[]> {
  const found = await rows(
    em,
    sql<{
      id: string | null;
      name: string | null;
      deleted: boolean | null;
      overrides: RatelimitOverrideRule[];
    }>`
      select n.id, n.name, n.deleted_at is not null as deleted,
             coalesce((select json_agg(json_build_object('id', o.id, 'identifier', o.identifier,
                         'limit', o."limit", 'durationMs', o.duration_ms) order by o.id)
                       from ratelimit_overrides o
                       where o.namespace_id = n.id and o.deleted_at is null
                         and (o.identifier = q.identifier or strpos(o.identifier, '*') > 0)), '[]'::json) as overrides
      from unnest(${queries.map((query) => query.namespace)}::text[], ${queries.map((query) => query.identifier)}::text[])
        with ordinality as q(namespace, identifier, position)
      left join lateral (${namespaceNamed(workspaceId, sql.ref('q.namespace'))}) n on true
      order by q.position`,
  );
  return found.map((row) => ({
    namespace: row.id === null ? undefined : { id: row.id, name: row.name ?? '', deleted: row.deleted === true },
    overrides: row.overrides,
  }));
}

/**
 * Creates the workspace's namespaces with these names, those that do not exist yet. Concurrent
 * first uses of one name race on the unique (workspace, name): the loser does nothing and finds
 * the winner's row afterwards. Names go in sorted order, so two batches naming the same names
 * lock them in the same order and cannot deadlock. Returns the ids of the ones this call created.
 */
export async function createRatelimitNamespaces(
  em: EntityManager,
  workspaceId: string,
  names: readonly string[],
): Promise<Map<string, string>> {
  const sorted = [...new Set(names)].sort();
  if (sorted.length === 0) return new Map();
  const created = await rows(
    em,
    sql<{ id: string; name: string }>`
      insert into ratelimit_namespaces (id, workspace_id, name, created_at)
      select t.id, ${workspaceId}, t.name, now()
      from unnest(${sorted.map(() => newId('ratelimitNamespace'))}::text[], ${sorted}::text[])
        with ordinality as t(id, name, position)
      order by t.position
      on conflict (workspace_id, name) do nothing
      returning id, name`,
  );
  return new Map(created.map((row) => [row.name, row.id]));
}

/** The workspace's live namespace with this id or name. */
export async function findLiveRatelimitNamespace(
  em: EntityManager,
  workspaceId: string,
  namespace: string,
): Promise<RatelimitNamespaceRecord | undefined> {
  const [found] = await rows(em, namespaceNamed(workspaceId, namespace));
  if (!found || found.deleted_at !== null) return undefined;
  return { id: found.id, name: found.name, deleted: false };
}

/**
 * Soft-deletes a live namespace; false when there is none. Its name stays taken (the unique
 * constraint is not partial), so limiting by the name answers 410 rather than creating a new one.
 */
export async function deleteRatelimitNamespace(
  em: EntityManager,
  workspaceId: string,
  namespaceId: string,
): Promise<boolean> {
  const deleted = await rows(
    em,
    sql`
      update ratelimit_namespaces set deleted_at = now()
      where id = ${namespaceId} and workspace_id = ${workspaceId} and deleted_at is null
      returning id`,
  );
  return deleted.length > 0;
}

export interface RatelimitNamespaceListing {
  id: string;
  name: string;
  createdAt: number;
}

/** A page of the workspace's live namespaces in id order; `search` matches the id or the name. */
export async function listRatelimitNamespaces(
  em: EntityManager,
  workspaceId: string,
  query: PageQuery,
): Promise<RatelimitNamespaceListing[]> {
  return rows(
    em,
    sql<RatelimitNamespaceListing>`
      select id, name, ${epochMs('created_at')} as "createdAt" from ratelimit_namespaces
      where workspace_id = ${workspaceId} and deleted_at is null
        and ${startingAt('id', query.fromId)} and ${containsAny(['id', 'name'], query.search)}
      order by id
      limit ${query.count}`,
  );
}
