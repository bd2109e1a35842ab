import { router } from '../../trpc.ts';
import { createKey } from './createKey.ts';
import { createPortal } from './createPortal.ts';
import { createSession } from './createSession.ts';
import { deleteKey } from './deleteKey.ts';
import { deletePortal } from './deletePortal.ts';
import { exchangeCode } from './exchangeCode.ts';
import { getPortal } from './getPortal.ts';
import { getSession } from './getSession.ts';
import { getVerifications } from './getVerifications.ts';
import { listKeys } from './listKeys.ts';
import { listPortals } from './listPortals.ts';
import { listSessions } from './listSessions.ts';
import { rerollKey } from './rerollKey.ts';
import { revokeSession } from './revokeSession.ts';
import { updateKey } from './updateKey.ts';
import { updatePortal } from './updatePortal.ts';

/**
 * Customer key portals (docs/portal.md). The provider's procedures take a root key; exchangeCode
 * takes nothing; the customer's take the `portal_session` cookie (or `Bearer pat_…` at `/v2`).
 */
export const portalRouter = router({
  createPortal,
  getPortal,
  updatePortal,
  deletePortal,
  listPortals,
  createSession,
  listSessions,
  revokeSession,
  exchangeCode,
  listKeys,
  rerollKey,
  getVerifications,
  getSession,
  createKey,
  updateKey,
  deleteKey,
});

/** The customer's procedures, authenticated by a portal session rather than a root key. */
export const PORTAL_CUSTOMER_PROCEDURES = [
  'portal.listKeys',
  'portal.rerollKey',
  'portal.getVerifications',
  'portal.getSession',
  'portal.createKey',
  'portal.updateKey',
  'portal.deleteKey',
] as const;
