import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { register, supportsSyncHooks } from 'import-in-the-middle/register-hooks.mjs';

/** The modules whose calls become spans: every request, every PostgreSQL query, every Redis command. */
const TRACED_MODULES = ['http', 'node:http', 'pg', 'ioredis'];

/**
 * Starts OpenTelemetry tracing (docs/operations.md, Tracing): a span for each HTTP request (joining
 * the caller's trace when it sends `traceparent`), and child spans for PostgreSQL and Redis, sent
 * over OTLP/HTTP to `endpoint`. Must run before those modules are imported. Resolves with the
 * function that sends the spans still buffered, for the node's last step.
 */
export async function startTracing(endpoint: string): Promise<() => Promise<void>> {
  // ES modules are patched through a loader hook, registered in this thread.
  if (!supportsSyncHooks()) throw new Error('tracing needs a Node.js with module.registerHooks (24.11.1 or later)');
  register({ include: TRACED_MODULES });
  const sdk = new NodeSDK({
    serviceName: 'keyplane',
    traceExporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }),
    instrumentations: [new HttpInstrumentation(), new PgInstrumentation(), new IORedisInstrumentation()],
  });
  sdk.start();
  return () => sdk.shutdown();
}
