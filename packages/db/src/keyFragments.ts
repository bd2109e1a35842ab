import type { RatelimitConfig } from '@keyplane/core';
import { sql } from './sql.ts';

// Raw: correlated subqueries that aggregate into JSON and arrays. As `sql` fragments they fit typed
// queries (`fragment.as(name)`) as well as raw ones, with their result type declared here once.

/** A key id column of the outer query, or one key's id as a parameter. */
type ColumnRef = ReturnType<typeof sql.ref> | string;

/** The rate limits configured on a key or an identity, as a JSON array of `RatelimitConfig`. */
export const ratelimitsOf = (owner: 'key_id' | 'identity_id', id: ColumnRef) => sql<RatelimitConfig[]>`
  coalesce((select json_agg(json_build_object('id', rl.id, 'name', rl.name, 'limit', rl."limit",
    'durationMs', rl.duration_ms, 'autoApply', rl.auto_apply) order by rl.name)
  from ratelimits rl where ${sql.ref(`rl.${owner}`)} = ${id}), '[]'::json)`;

/** The unique permission slugs a key holds, directly and through its roles, sorted. */
export const permissionSlugsOf = (keyId: ColumnRef) => sql<string[]>`
  coalesce((select array_agg(distinct p.slug) from permissions p where p.id in (
      select kp.permission_id from keys_permissions kp where kp.key_id = ${keyId}
      union select rp.permission_id from keys_roles kr
        join roles_permissions rp on rp.role_id = kr.role_id where kr.key_id = ${keyId})),
    '{}')`;

/** The slugs a key holds directly, not through roles, sorted. */
export const directPermissionSlugsOf = (keyId: ColumnRef) => sql<string[]>`
  coalesce((select array_agg(p.slug order by p.slug) from keys_permissions kp
      join permissions p on p.id = kp.permission_id where kp.key_id = ${keyId}), '{}')`;

/** The names of a key's roles, sorted. */
export const roleNamesOf = (keyId: ColumnRef) => sql<string[]>`
  coalesce((select array_agg(r.name order by r.name) from keys_roles kr
      join roles r on r.id = kr.role_id where kr.key_id = ${keyId}), '{}')`;

/**
 * A role's permissions as a JSON array of `{ id, name, slug, description }` by slug: a subquery,
 * so a page of roles comes with their permissions in one statement.
 */
export const rolePermissionsOf = (roleId: ColumnRef) => sql<
  { id: string; name: string; slug: string; description: string | null }[]
>`
  coalesce((select json_agg(json_build_object('id', p.id, 'name', p.name, 'slug', p.slug,
      'description', p.description) order by p.slug)
    from roles_permissions rp join permissions p on p.id = rp.permission_id
    where rp.role_id = ${roleId}), '[]'::json)`;
