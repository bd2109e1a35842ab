import { createChangeLog, settle } from '@keyplane/caches';
import { unauthorized } from '@keyplane/core';
import { initTRPC } from '@trpc/server';
import type { Context } from './context.ts';
import { domainErrorOf, publicErrorOf, toTRPCError } from './errors.ts';
import { recordChange, snapshotBefore } from './middleware/audit.ts';
import { authenticate, type RootKeyPrincipal } from './middleware/auth.ts';
import {
  authenticatePortalSession,
  type PortalSessionPrincipal,
  recordPortalChange,
  throttlePortalSession,
} from './middleware/portalSession.ts';
import { enforceWorkspaceRateLimit } from './middleware/workspaceRateLimit.ts';

export interface ProcedureMeta {
  /** Served under `/v2/<service>.<procedure>`; everything else is reachable only natively at `/trpc`. */
  public?: boolean;
  /** Returns `{ data, pagination }` (see pagination.ts); `/v2` puts `pagination` beside `data`. */
  list?: boolean;
  /** Mutations are recorded in the audit log unless they change nothing an operator audits (verifications, limits). */
  audit?: false;
  /** One sentence on what a public procedure does, for the OpenAPI document. */
  description?: string;
  /**
   * The error statuses a public procedure answers besides those every root-key call can (400, 401,
   * 403, 429, 500): the OpenAPI document lists them (docs/contract.md#statuses-and-types).
   */
  errors?: readonly ProcedureErrorStatus[];
  /** Resources the audit log names beside the input's and output's `…Id` fields (`portal` → `portalId`). */
  auditResources?: (input: unknown, output: unknown) => Record<string, string>;
  /**
   * Who calls it, where not a root key: `portalSession` (a portal customer: the `portal_session`
   * cookie, or `Bearer pat_…` at `/v2`) or `none` (no credential, such as portal.exchangeCode).
   */
  auth?: 'portalSession' | 'none';
}

/** The statuses of the domain's own errors (packages/core/src/errors.ts and analytics). */
export type ProcedureErrorStatus = 404 | 409 | 410 | 412 | 422;

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    isDev: false,
    errorFormatter({ shape, error, ctx }) {
      // The public error's type, as `/v2` gives it (errors.ts).
      const { type } = publicErrorOf(error);
      // Internal callers get the same safe messages as the public API: no internals on a 5xx.
      const message = shape.data.httpStatus >= 500 ? 'An unexpected error occurred.' : shape.message;
      // The request id as the public envelope's `meta.requestId` gives it, so a caller can quote it.
      const requestId = ctx?.requestId ?? null;
      return { ...shape, message, data: { ...shape.data, type, requestId } };
    },
  });

/** Turns a DomainError thrown anywhere below into a TRPCError carrying the contract's status. */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const domain = domainErrorOf(result.error.cause);
    if (domain) throw toTRPCError(domain);
  }
  return result;
});

/**
 * Error conversion, authentication (with the workspace API rate limit), settling what the call
 * changed of the nodes' caches, and the audit log in one step: each middleware level costs a context
 * copy, and verification is the hot path (docs/decisions/0006-merged-authenticated-middleware.md).
 */
const authenticated = t.middleware(({ ctx, next, type, path, meta, getRawInput }) => {
  const call = async () => {
    let rootKey: RootKeyPrincipal;
    try {
      const authenticated = authenticate(ctx);
      // A cached root key comes at once: the hot path does not wait a turn for it.
      rootKey = authenticated instanceof Promise ? await authenticated : authenticated;
      // Checked here, not inside, so that workspaces without a limit (most) do not pay for an await.
      if (rootKey.apiRequestsPerMinute !== null) {
        await enforceWorkspaceRateLimit(ctx, rootKey.workspaceId, rootKey.apiRequestsPerMinute);
      }
    } catch (error) {
      const domain = domainErrorOf(error);
      throw domain ? toTRPCError(domain) : error;
    }
    // Every write that changes cached state announces it here (it takes the log as a parameter); the
    // call answers only once every node has forgotten what it changed, whether it succeeded or not.
    const changeLog = createChangeLog();
    const audited = type === 'mutation' && meta?.audit !== false;
    // What the change touches as it is before, so the audit log can say what it changed.
    const before = audited ? await snapshotBefore(ctx, rootKey, path, await getRawInput()) : undefined;
    const result = await next({ ctx: { rootKey, changeLog } });
    if (changeLog.changes.length > 0) {
      await settle(ctx.services, changeLog.changes, ctx.services.announcementsDelivered);
    }
    if (!result.ok) {
      const domain = domainErrorOf(result.error.cause);
      if (domain) throw toTRPCError(domain);
      return result;
    }
    if (audited) {
      const input = await getRawInput();
      const extra = meta?.auditResources?.(input, result.data);
      await recordChange(ctx, rootKey, path, input, result.data, before, extra);
    }
    return result;
  };
  // The calls of a /trpc batch run one after the other (Context.inTurn).
  return ctx.inTurn ? ctx.inTurn(call) : call();
});

// Only named base procedures leave this file, so every procedure gets the right middleware chain.
export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(domainErrors);
export const rootKeyProcedure = t.procedure.use(authenticated);
/**
 * A person signed in to their account (the dashboard), never a root key: their own settings. The
 * person is `ctx.person`; `ctx.rootKey` is the same principal, for the audit and the checks.
 */
export const personProcedure = rootKeyProcedure.use(({ ctx, next }) => {
  const { person } = ctx.rootKey;
  if (!person) {
    throw toTRPCError(unauthorized('This call is for a person signed in to their account; a root key has no account.'));
  }
  return next({ ctx: { person } });
});

/**
 * A portal customer (docs/portal.md): the session of the `portal_session` cookie (or `Bearer pat_…`
 * at `/v2`), read from the database on every request, throttled per session; `ctx.portal` is the
 * session (portal, API, externalId, scopes). Changes settle on every node before the answer and are
 * audited with the customer as actor.
 */
export const portalProcedure = t.procedure.use(({ ctx, next, type, path, meta, getRawInput }) => {
  const call = async () => {
    let portal: PortalSessionPrincipal;
    try {
      portal = await authenticatePortalSession(ctx);
      await throttlePortalSession(ctx, portal);
    } catch (error) {
      const domain = domainErrorOf(error);
      throw domain ? toTRPCError(domain) : error;
    }
    const changeLog = createChangeLog();
    const result = await next({ ctx: { portal, changeLog } });
    if (changeLog.changes.length > 0) {
      await settle(ctx.services, changeLog.changes, ctx.services.announcementsDelivered);
    }
    if (!result.ok) {
      const domain = domainErrorOf(result.error.cause);
      if (domain) throw toTRPCError(domain);
      return result;
    }
    if (type === 'mutation' && meta?.audit !== false) {
      await recordPortalChange(ctx, portal, path, await getRawInput(), result.data);
    }
    return result;
  };
  return ctx.inTurn ? ctx.inTurn(call) : call();
});
