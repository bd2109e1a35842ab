import type { IncomingMessage } from 'node:http';

/**
 * The caller's network address: the connection's, or behind a reverse proxy the operator trusts
 * (TRUST_PROXY), the first address of X-Forwarded-For, which that proxy set.
 */
export function clientAddressOf(request: IncomingMessage | undefined, trustProxy: boolean): string | undefined {
  if (request === undefined) return undefined;
  if (trustProxy) {
    const forwarded = request.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return request.socket.remoteAddress;
}
