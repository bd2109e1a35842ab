import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './root.ts';

export {
  type Context,
  createContextInner,
  oneAtATime,
  type PortalSessionCarrier,
  type SessionCarrier,
} from './context.ts';
export {
  domainErrorOf,
  PUBLIC_STATUSES,
  type PublicError,
  publicError,
  publicErrorOf,
  titleOf,
  toTRPCError,
  UNEXPECTED_ERROR,
} from './errors.ts';
export type { PersonActor, RootKeyPrincipal } from './middleware/auth.ts';
export { linkOrigin, originOfHost, startPersonSession } from './people/sessions.ts';
export { type AppRouter, appRouter } from './root.ts';
export type { InvitationEmail, InvitationMailer, Services, TeamSettings } from './services.ts';
export { createCallerFactory, type ProcedureMeta } from './trpc.ts';

export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
