import type { AppRouter, RouterOutputs } from '@keyplane/procedures';
import { createTRPCClient, getUntypedClient, httpLink, TRPCClientError } from '@trpc/client';

// The customer's calls, authenticated by the HttpOnly `portal_session` cookie that
// portal.exchangeCode sets (docs/portal.md): the page never sees the access token.

const client = getUntypedClient(
  createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: '/trpc',
        // Queries go by POST too: nothing of the customer's goes into URLs and access logs.
        methodOverride: 'POST',
        // The server's guard for cookie-authenticated calls: a cross-site form cannot set it.
        headers: { 'x-keyplane-dashboard': '1' },
      }),
    ],
  }),
);

export type Key = RouterOutputs['keys']['getKey'];

/** What the page shows of the portal and what the session may do (portal.getSession). */
export interface PortalSession {
  portal: {
    displayName: string;
    logoUrl?: string | null;
    primaryColor?: string | null;
    supportUrl?: string | null;
  };
  scopes: string[];
  returnUrl?: string | null;
  expiresAt: number;
}

export interface KeyPage {
  keys: Key[];
  cursor?: string;
}

/** A day's verifications of one key, or of all the customer's keys. */
export interface UsageBucket {
  time: number;
  valid: number;
  refused: number;
}

export const portalApi = {
  exchangeCode: (code: string) =>
    client.mutation('portal.exchangeCode', { code }) as Promise<{ accessToken: string; expiresAt: number }>,
  getSession: () => client.query('portal.getSession', undefined) as Promise<PortalSession>,
  listKeys: (cursor?: string) =>
    client.query('portal.listKeys', { limit: 100, cursor }) as Promise<{
      data: Key[];
      pagination?: { cursor?: string };
    }>,
  createKey: (name: string | undefined) =>
    client.mutation('portal.createKey', { name }) as Promise<{ keyId: string; key: string }>,
  rerollKey: (keyId: string, expiration: number) =>
    client.mutation('portal.rerollKey', { keyId, expiration }) as Promise<{ keyId: string; key: string }>,
  updateKey: (keyId: string, name: string) => client.mutation('portal.updateKey', { keyId, name }),
  deleteKey: (keyId: string) => client.mutation('portal.deleteKey', { keyId }),
  getVerifications: (input: { startTime: number; endTime: number; keyId?: string }) =>
    client.query('portal.getVerifications', input) as Promise<{
      granularity: 'hour' | 'day';
      verifications: { time: number; keyId: string; outcome: string; count: number }[];
    }>,
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
