import { appRouter, type ProcedureMeta } from '@keyplane/procedures';
import type { AnyTRPCRouter, TRPCProcedureType } from '@trpc/server';

/** A procedure reachable at `/v2/<path>`: how tRPC calls it, and whether `/v2` lifts its `pagination`. */
export interface PublicProcedure {
  type: 'query' | 'mutation';
  list: boolean;
  /** A change the audit log records (with the caller's address): every mutation but those marked `audit: false`. */
  audited: boolean;
  /** A portal customer's procedure (`meta.auth: 'portalSession'`): it may read the `portal_session` cookie. */
  portalSession: boolean;
}

/**
 * The `/v2/<path>` table of a router, built once: only procedures marked `meta.public` are
 * reachable. Queries and mutations alike are called by POST, each with its own type.
 */
export function publicProcedureTable(router: AnyTRPCRouter): ReadonlyMap<string, PublicProcedure> {
  const table = new Map<string, PublicProcedure>();
  const procedures = router._def.procedures as Record<
    string,
    { _def: { type: TRPCProcedureType; meta?: ProcedureMeta } }
  >;
  for (const [path, { _def }] of Object.entries(procedures)) {
    if (_def.meta?.public === true && _def.type !== 'subscription') {
      table.set(path, {
        type: _def.type,
        list: _def.meta.list === true,
        audited: _def.type === 'mutation' && _def.meta.audit !== false,
        portalSession: _def.meta.auth === 'portalSession',
      });
    }
  }
  return table;
}

/** The service's public procedures. */
export const PUBLIC_PROCEDURES = publicProcedureTable(appRouter);
