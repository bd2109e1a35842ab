import { Migration } from '@mikro-orm/migrations';

const GRANULARITIES = ['minute', 'hour', 'day', 'month'];

/** The caller's workspace, and the APIs or namespaces of it the root key may read ('*': all of them). */
const WORKSPACE = `current_setting('keyplane.analytics_workspace', true)`;

/** True for an id in the scope setting: '*' holds every id, an array literal those ids, anything else none. */
function inScope(setting: string, id: string): string {
  const value = `current_setting('keyplane.${setting}', true)`;
  return `(${value} = '*' or ${id} = any (coalesce(nullif(nullif(${value}, ''), '*'), '{}')::text[]))`;
}

/**
 * Written by hand (entities do not model views). The analytics tables as PostgreSQL objects, so
 * that the database itself keeps each caller to its rows (docs/architecture.md, Analytics):
 *
 * - `keyplane_analytics_scoped`: one security-barrier view per event table, holding only the rows
 *   of the workspace (and APIs or namespaces) the analytics transaction names in its settings
 *   `keyplane.analytics_workspace`, `keyplane.analytics_apis` and `keyplane.analytics_namespaces`.
 *   Its columns are the table's, untouched: PostgreSQL evaluates nothing of a caller's query on a
 *   row before the view's filter, except leakproof operators on these plain columns.
 * - `keyplane_analytics`: the public tables (key_verifications_v1, …), views over the scoped ones
 *   that compute the public columns, so that a computed column is only ever computed on a row the
 *   caller may read.
 * - The NOLOGIN role `keyplane_analytics`, allowed to read the public views and nothing else; the
 *   analytics transaction runs as it. Roles belong to the whole cluster: it is made once, by the
 *   first database that needs it. Without the right to create roles, or to grant it to the
 *   migrating user, the migration goes on without it, and analytics queries run as the connecting
 *   user (docs/operations.md, Analytics role).
 *
 * The views depend on the event tables: a later migration that changes their columns recreates them.
 */
export class Migration20261128120000_analytics_views extends Migration {

  override name = 'Migration20261128120000_analytics_views';

  override up(): void | Promise<void> {
    this.addSql(`create schema "keyplane_analytics_scoped";`);
    this.addSql(`create schema "keyplane_analytics";`);

    this.addSql(`create view "keyplane_analytics_scoped"."key_verifications" with (security_barrier) as
      select e.time, e.request_id, e.workspace_id, e.api_id, e.key_id, e.identity_id, e.external_id, e.outcome,
             e.tags, e.spent_credits, e.latency_ms
      from "key_verifications" e
      where e.workspace_id = ${WORKSPACE} and ${inScope('analytics_apis', 'e.api_id')};`);
    this.addSql(`create view "keyplane_analytics"."key_verifications_v1" as
      select floor(extract(epoch from e.time) * 1000)::int8 as time, e.request_id, e.workspace_id,
             e.api_id as key_space_id, e.api_id, e.key_id, e.identity_id, e.external_id, e.outcome, e.tags,
             e.spent_credits, e.latency_ms as latency
      from "keyplane_analytics_scoped"."key_verifications" e;`);

    // One row per decision: a call's first in the row's own columns, the others in `further`.
    this.addSql(`create view "keyplane_analytics_scoped"."ratelimit_decisions" with (security_barrier) as
      select e.time, e.request_id, e.workspace_id, d.namespace_id, d.identifier, e.passed, d."limit", d.remaining,
             d.override_id, e.latency_ms
      from "ratelimit_events" e
      cross join lateral (
        select e.namespace_id::text, e.identifier::text, e."limit", e.remaining, e.override_id::text
        union all
        select f."namespaceId", f.identifier, f."limit", f.remaining, f."overrideId"
        from jsonb_to_recordset(e.further) as f ("namespaceId" text, identifier text, "limit" int, remaining int, "overrideId" text)
      ) as d (namespace_id, identifier, "limit", remaining, override_id)
      where e.workspace_id = ${WORKSPACE} and ${inScope('analytics_namespaces', 'd.namespace_id')};`);
    this.addSql(`create view "keyplane_analytics"."ratelimits_v1" as
      select floor(extract(epoch from e.time) * 1000)::int8 as time, e.request_id, e.workspace_id, e.namespace_id,
             e.identifier, e.passed, e."limit", e.remaining, e.override_id, e.latency_ms as latency
      from "keyplane_analytics_scoped"."ratelimit_decisions" e;`);

    for (const granularity of GRANULARITIES) {
      this.addSql(`create view "keyplane_analytics_scoped"."key_verifications_per_${granularity}" with (security_barrier) as
        select r.time, r.workspace_id, r.api_id, r.key_id, r.identity_id, r.external_id, r.outcome, r.count,
               r.spent_credits, r.latency_sum
        from "key_verifications_per_${granularity}" r
        where r.workspace_id = ${WORKSPACE} and ${inScope('analytics_apis', 'r.api_id')};`);
      this.addSql(`create view "keyplane_analytics"."key_verifications_per_${granularity}_v1" as
        select r.time, r.workspace_id, r.api_id as key_space_id, r.api_id, r.key_id,
               nullif(r.identity_id, '') as identity_id, nullif(r.external_id, '') as external_id, r.outcome,
               r.count, r.spent_credits, r.latency_sum / r.count as latency_avg
        from "keyplane_analytics_scoped"."key_verifications_per_${granularity}" r;`);
      this.addSql(`create view "keyplane_analytics_scoped"."ratelimit_events_per_${granularity}" with (security_barrier) as
        select r.time, r.workspace_id, r.namespace_id, r.identifier, r.passed, r.count
        from "ratelimit_events_per_${granularity}" r
        where r.workspace_id = ${WORKSPACE} and ${inScope('analytics_namespaces', 'r.namespace_id')};`);
      this.addSql(`create view "keyplane_analytics"."ratelimits_per_${granularity}_v1" as
        select r.time, r.workspace_id, r.namespace_id, r.identifier, r.passed, r.count
        from "keyplane_analytics_scoped"."ratelimit_events_per_${granularity}" r;`);
    }

    this.addSql(`do $$
      begin
        if not exists (select from pg_roles where rolname = 'keyplane_analytics') then
          begin
            create role "keyplane_analytics" nologin noinherit;
          exception
            -- Another database's migration made it meanwhile.
            when duplicate_object or unique_violation then null;
            when insufficient_privilege then
              raise notice 'keyplane: % may not create roles: analytics queries run as it, see docs/operations.md (Analytics role)', current_user;
          end;
        end if;
        if exists (select from pg_roles where rolname = 'keyplane_analytics') then
          grant usage on schema "keyplane_analytics" to "keyplane_analytics";
          grant select on all tables in schema "keyplane_analytics" to "keyplane_analytics";
          if not pg_has_role(current_user, 'keyplane_analytics', 'member') then
            begin
              grant "keyplane_analytics" to current_user;
            exception when others then
              raise notice 'keyplane: could not grant keyplane_analytics to %: analytics queries run as it, see docs/operations.md (Analytics role)', current_user;
            end;
          end if;
        end if;
      end $$;`);
  }

  override down(): void | Promise<void> {
    // The role stays: other databases of the cluster may use it.
    this.addSql(`drop schema "keyplane_analytics" cascade;`);
    this.addSql(`drop schema "keyplane_analytics_scoped" cascade;`);
  }

}
