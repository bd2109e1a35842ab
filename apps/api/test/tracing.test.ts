import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { callAt, REDIS_URL } from './harness.ts';
import { startServerProcess } from './serverProcess.ts';

interface ReceivedSpan {
  name: string;
  traceId: string;
  scope: string;
}

/** An OTLP/HTTP (JSON) trace receiver: what a collector would be sent. */
async function traceReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; server: Server }> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        const { resourceSpans } = JSON.parse(body) as {
          resourceSpans: { scopeSpans: { scope: { name: string }; spans: { name: string; traceId: string }[] }[] }[];
        };
        for (const { scopeSpans } of resourceSpans) {
          for (const { scope, spans: scoped } of scopeSpans) {
            for (const { name, traceId } of scoped) spans.push({ name, traceId, scope: scope.name });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, server };
}

describe('OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it("sends a span per request, in the caller's trace, with PostgreSQL and Redis spans", async () => {
    const receiver = await traceReceiver();
    const server = await startServerProcess({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    try {
      const rootKey = server.rootKey as string;
      const traced = await fetch(`${server.url}/v2/apis.createApi`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${rootKey}`,
          traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
        },
        body: JSON.stringify({ name: 'traced' }),
      });
      expect(traced.status).toBe(200);
      const limited = await callAt(
        server.url,
        'ratelimit.limit',
        { namespace: 'traced', identifier: 'user_1', limit: 5, duration: 60_000 },
        rootKey,
      );
      expect(limited.status).toBe(200);
    } finally {
      // A stop sends the spans still buffered.
      expect(await server.stop()).toBe(0);
      receiver.server.close();
    }
    const inTrace = receiver.spans.filter((span) => span.traceId === traceId);
    expect(inTrace.map((span) => span.scope)).toEqual(
      expect.arrayContaining(['@opentelemetry/instrumentation-http', '@opentelemetry/instrumentation-pg']),
    );
    if (REDIS_URL) {
      expect(receiver.spans.map((span) => span.scope)).toContain('@opentelemetry/instrumentation-ioredis');
    }
  }, 60_000);
});
