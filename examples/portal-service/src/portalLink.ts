import { createServer, type Server } from 'node:http';
import type { KeyplaneClient } from '@keyplane/client';

export interface PortalServiceOptions {
  keyplane: KeyplaneClient;
  /** The portal configured for this product's API (`pc_…`). */
  portalId: string;
  /** Where the portal sends customers back to. */
  returnUrl: string;
  /**
   * Who is signed in to this product for a request: a stand-in for the product's own sessions
   * (here the `x-user-id` header a test or a proxy sets); undefined: nobody.
   */
  signedInUser(request: { headers: Record<string, string | string[] | undefined> }): string | undefined;
}

/**
 * A product's backend, reduced to the one route the portal needs: `GET /settings/api-keys` opens a
 * Keyplane portal session for the signed-in user and redirects them to it (docs/portal.md).
 */
export function createPortalService(options: PortalServiceOptions): Server {
  return createServer(async (request, response) => {
    if (request.method !== 'GET' || request.url !== '/settings/api-keys') {
      response.writeHead(404).end();
      return;
    }
    const userId = options.signedInUser(request);
    if (userId === undefined) {
      response.writeHead(401, { 'content-type': 'text/plain' }).end('Sign in first.');
      return;
    }
    try {
      const { url } = await options.keyplane.portal.createSession.mutate({
        portal: options.portalId,
        externalId: userId,
        scopes: ['keys:read', 'keys:create', 'keys:reroll', 'keys:update', 'keys:delete', 'analytics:read'],
        returnUrl: options.returnUrl,
      });
      response.writeHead(303, { location: url, 'cache-control': 'no-store' }).end();
    } catch (error) {
      console.error('could not open a portal session', error);
      response.writeHead(502, { 'content-type': 'text/plain' }).end('The key portal is unavailable.');
    }
  });
}
