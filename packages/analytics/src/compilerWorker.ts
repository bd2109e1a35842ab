// The thread createAnalyticsCompiler starts: compiles each query it is sent and answers with the
// result, or with the refusal's parts (an Error does not cross threads with its class).
import { parentPort } from 'node:worker_threads';
import type { CompileReply, CompileRequest } from './compiler.ts';
import { AnalyticsQueryError } from './errors.ts';
import { compileAnalyticsQuery } from './guard.ts';

const port = parentPort;
if (!port) throw new Error('compilerWorker.ts runs as a worker thread of createAnalyticsCompiler');

port.on('message', async ({ id, query, options }: CompileRequest) => {
  let reply: CompileReply;
  try {
    reply = { id, compiled: await compileAnalyticsQuery(query, options) };
  } catch (error) {
    reply =
      error instanceof AnalyticsQueryError
        ? { id, refused: { code: error.code, reason: error.reason, position: error.position } }
        : { id, failed: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  port.postMessage(reply);
});
