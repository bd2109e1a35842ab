import { CONFIG_ERROR_EXIT_CODE, type Env, EnvError, loadEnv } from '@keyplane/config';

function readEnv(): Env {
  try {
    return loadEnv();
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exit(CONFIG_ERROR_EXIT_CODE);
    }
    throw error;
  }
}

const env = readEnv();
// Tracing patches http, pg and ioredis as they load, so it starts before the node's modules are
// imported; without OTEL_EXPORTER_OTLP_ENDPOINT none of its code is even loaded (docs/operations.md).
let stopTracing: (() => Promise<void>) | undefined;
if (env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined) {
  const { startTracing } = await import('./tracing.ts');
  stopTracing = await startTracing(env.OTEL_EXPORTER_OTLP_ENDPOINT);
}
const { runNode } = await import('./node.ts');
await runNode(env, stopTracing);
