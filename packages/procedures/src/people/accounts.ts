import { rolePermissions, type TeamRole } from '@keyplane/core';
import { type EntityManager, findMembership } from '@keyplane/db';
import type { Context, SessionCarrier } from '../context.ts';
import { recordChange } from '../middleware/audit.ts';
import type { RootKeyPrincipal } from '../middleware/auth.ts';
import { startPersonSession } from './sessions.ts';

/** A person who just proved who they are, as the audit log names them. */
export interface SignedInAccount {
  userId: string;
  email: string;
  name: string;
}

/** The principal of a person who is signing in (no session yet): what the audit records them as. */
export function personPrincipal(
  account: SignedInAccount,
  workspace: { workspaceId: string; role: TeamRole; sessionId: string; expiresAt: number },
): RootKeyPrincipal {
  return {
    rootKeyId: null,
    workspaceId: workspace.workspaceId,
    permissions: rolePermissions(workspace.role),
    expiresAt: null,
    apiRequestsPerMinute: null,
    person: {
      ...account,
      role: workspace.role,
      sessionId: workspace.sessionId,
      idleExpiresAt: workspace.expiresAt,
      absoluteExpiresAt: workspace.expiresAt,
    },
  };
}

/**
 * A carrier that hands the browser its cookie only once `flush` is called: a sign-in made in a
 * transaction sets no cookie for a session that was rolled back.
 */
export function cookieAfterCommit(carrier: SessionCarrier): { carrier: SessionCarrier; flush(): void } {
  let issued: Parameters<SessionCarrier['issue']> | undefined;
  return {
    carrier: {
      presented: carrier.presented,
      issue: (...args) => {
        issued = args;
      },
      clear: () => carrier.clear(),
    },
    flush() {
      if (issued) carrier.issue(...issued);
    },
  };
}

/**
 * Signs a person in to a workspace inside the caller's transaction `tx` (startPersonSession);
 * answers what the audit entry, recorded once the transaction commits, needs.
 */
export async function startSessionIn(
  ctx: Context,
  tx: EntityManager,
  carrier: SessionCarrier,
  person: { userId: string; workspaceId: string },
): Promise<{ sessionId: string; expiresAt: number; role: TeamRole }> {
  const membership = await findMembership(tx, person.workspaceId, person.userId);
  // Callers sign people in only where they just found or made a membership.
  if (!membership) throw new Error('startSessionIn: the person is not a member of the workspace');
  const started = await startPersonSession({ em: tx, services: ctx.services }, carrier, person);
  return { ...started, role: membership.role };
}

/** Records how a person got in, in the workspace they got in to, under their name. */
export async function recordSignedIn(
  ctx: Context,
  account: SignedInAccount,
  started: { workspaceId: string; role: TeamRole; sessionId: string; expiresAt: number },
  event: string,
  resources: Record<string, string> = {},
): Promise<void> {
  await recordChange(ctx, personPrincipal(account, started), event, { ...resources, userId: account.userId }, {});
}
