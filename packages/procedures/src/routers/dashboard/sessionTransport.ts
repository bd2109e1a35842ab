import { badRequest } from '@keyplane/core';
import type { Context, SessionCarrier } from '../../context.ts';

/** Sessions live in browser cookies: only `/trpc` carries one, so anything else cannot sign in. */
export function sessionTransportOf(ctx: Context): SessionCarrier {
  if (!ctx.session) throw badRequest('Dashboard sessions are only available to the dashboard, through /trpc.');
  return ctx.session;
}
