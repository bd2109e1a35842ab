import type { AppRouter, RouterOutputs } from '@keyplane/procedures';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';

// The customer's calls, authenticated by the HttpOnly `portal_session` cookie that
// portal.exchangeCode sets (docs/portal.md): the page never reads the access token.

const client = createTRPCClient<AppRouter>({
  links: [
    httpLink({
      url: '/trpc',
      // Queries go by POST too: nothing of the customer's goes into URLs and access logs.
      methodOverride: 'POST',
      // The server's guard for cookie-authenticated calls: a cross-site form cannot set it.
      headers: { 'x-keyplane-portal': '1' },
    }),
  ],
});

type Portal = RouterOutputs['portal'];
export type Key = Portal['listKeys']['data'][number];
export type PortalSession = Portal['getSession'];
export type Verifications = Portal['getVerifications'];

/** A day's verifications of one key, or of all the customer's keys. */
export interface UsageBucket {
  time: number;
  valid: number;
  refused: number;
}

const PAGE_SIZE = 100;

export const portalApi = {
  exchangeCode: (code: string) => client.portal.exchangeCode.mutate({ code }),
  getSession: () => client.portal.getSession.query({}),
  listKeys: (cursor?: string) => client.portal.listKeys.query({ limit: PAGE_SIZE, cursor }),
  createKey: (name: string | undefined) => client.portal.createKey.mutate({ name }),
  rerollKey: (keyId: string, expiration: number) => client.portal.rerollKey.mutate({ keyId, expiration }),
  updateKey: (keyId: string, name: string) => client.portal.updateKey.mutate({ keyId, name }),
  deleteKey: (keyId: string) => client.portal.deleteKey.mutate({ keyId }),
  getVerifications: (input: { startTime: number; endTime: number; keyId?: string }) =>
    client.portal.getVerifications.query(input),
};

/** The session is over (expired, revoked, the portal disabled), or the code was not good: 401. */
export function isUnauthorized(error: unknown): boolean {
  return error instanceof TRPCClientError && error.data?.code === 'UNAUTHORIZED';
}

/** What went wrong, in words a customer can act on. */
export function problemText(error: unknown): string {
  if (error instanceof TRPCClientError) {
    if (error.data?.code === 'TOO_MANY_REQUESTS')
      return 'Too many changes in a short time. Wait a moment, then try again.';
    return error.message;
  }
  return 'The server could not be reached. Check your connection, then try again.';
}
