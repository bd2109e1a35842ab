import type { IncomingMessage } from 'node:http';
import { BlockList, isIP, isIPv4 } from 'node:net';
import type { TrustProxy } from '@keyplane/config';

/** Reads the caller's network address off a request, as TRUST_PROXY says (docs/operations.md#client-addresses). */
export type ClientAddressReader = (request: IncomingMessage | undefined) => string | undefined;

const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** An IPv4 address a dual-stack socket reports as `::ffff:a.b.c.d`, as the IPv4 address it is. */
function unmapped(address: string): string {
  return IPV4_MAPPED.exec(address)?.[1] ?? address;
}

/**
 * The caller's address: the connection's, or behind proxies the operator trusts, the address the
 * first trusted proxy saw. Each proxy appends the address it saw to X-Forwarded-For, so everything
 * left of what the trusted proxies wrote is the client's own text: never trusted.
 */
export function clientAddressReader(trustProxy: TrustProxy): ClientAddressReader {
  const connectedTo = (request: IncomingMessage | undefined) => {
    const address = request?.socket.remoteAddress;
    return address === undefined ? undefined : unmapped(address);
  };
  if (trustProxy === false) return connectedTo;
  // Node joins repeated X-Forwarded-For headers into one list, in order.
  const forwarded = (request: IncomingMessage) =>
    [request.headers['x-forwarded-for'] ?? '']
      .flat()
      .join(',')
      .split(',')
      .map((entry) => unmapped(entry.trim()))
      .filter((entry) => entry !== '');
  if ('hops' in trustProxy) {
    // The last `hops` entries were written by the trusted proxies; the one furthest left of them is
    // what the outermost proxy saw. Fewer entries: the request came past some proxies.
    const { hops } = trustProxy;
    return (request) => {
      if (request === undefined) return undefined;
      const entries = forwarded(request);
      if (entries.length === 0) return connectedTo(request);
      return entries[Math.max(0, entries.length - hops)];
    };
  }
  const trusted = new BlockList();
  for (const proxy of trustProxy.proxies) {
    const [address = '', prefix] = proxy.split('/');
    const family = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (prefix === undefined) trusted.addAddress(address, family);
    else trusted.addSubnet(address, Number(prefix), family);
  }
  const isTrusted = (address: string) =>
    isIP(address) !== 0 && trusted.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
  return (request) => {
    const connected = connectedTo(request);
    if (request === undefined || connected === undefined) return connected;
    // From the connection leftwards through X-Forwarded-For: the first address that is no trusted
    // proxy's is the client's.
    const chain = [...forwarded(request), connected];
    let at = chain.length - 1;
    while (at > 0 && isTrusted(chain[at] as string)) at--;
    return chain[at];
  };
}
