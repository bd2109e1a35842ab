import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { NodeMetrics } from '../metrics.ts';

/** How `/metrics` is kept from facing the internet (docs/operations.md, Metrics). */
export interface MetricsAccess {
  /** When set, a scrape must send `Authorization: Bearer <token>`. */
  bearerToken?: string;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether the Authorization header carries the token; compared in constant time. */
export function scrapeAllowed(access: MetricsAccess, authorization: string | undefined): boolean {
  if (access.bearerToken === undefined) return true;
  const presented = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(presented), digest(access.bearerToken));
}

/** The Prometheus text exposition of this node's metrics. */
export async function exposition(metrics: NodeMetrics): Promise<{ contentType: string; body: string }> {
  return { contentType: metrics.contentType, body: await metrics.exposition() };
}

/**
 * A listener of its own for `/metrics` (METRICS_PORT), apart from the API's: it can be bound where
 * only the scraper reaches it, and a scrape never queues behind API traffic's connections.
 */
export function createMetricsServer(metrics: NodeMetrics, access: MetricsAccess): Server {
  return createServer((request, response) => {
    const path = (request.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics') return void response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
    if (request.method !== 'GET') {
      return void response.writeHead(405, { allow: 'GET', 'content-type': 'text/plain' }).end('Use GET\n');
    }
    if (!scrapeAllowed(access, request.headers.authorization)) {
      return void response
        .writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'text/plain' })
        .end('A bearer token is required (METRICS_TOKEN)\n');
    }
    exposition(metrics).then(
      ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(body),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('Could not collect the metrics\n'),
    );
  });
}
