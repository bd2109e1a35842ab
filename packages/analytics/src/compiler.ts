import { Worker } from 'node:worker_threads';
import { type AnalyticsErrorCode, AnalyticsQueryError, type QueryPosition } from './errors.ts';
import type { CompiledQuery, CompileOptions } from './guard.ts';

export interface CompileRequest {
  id: number;
  query: string;
  options: CompileOptions;
}

export type CompileReply =
  | { id: number; compiled: CompiledQuery }
  | { id: number; refused: { code: AnalyticsErrorCode; reason: string; position: QueryPosition | undefined } }
  | { id: number; failed: string };

export interface AnalyticsCompiler {
  /** compileAnalyticsQuery, on the compiler's thread; refusals are AnalyticsQueryErrors as there. */
  compile(query: string, options: CompileOptions): Promise<CompiledQuery>;
  /** Stops the thread; compilations under way fail. */
  close(): Promise<void>;
}

interface Pending {
  resolve: (compiled: CompiledQuery) => void;
  reject: (error: unknown) => void;
}

/**
 * Compiles queries on a thread of its own, one at a time in arrival order. Parsing, checking and
 * printing a long query holds the CPU for a long time (over 100 ms for one of 10,000 characters),
 * and on the main thread that would hold up every request of the process, verifications included.
 * The thread starts with the first query; if it dies, the queries it held fail and the next one
 * starts a new thread.
 */
export function createAnalyticsCompiler(): AnalyticsCompiler {
  const pending = new Map<number, Pending>();
  let worker: Worker | undefined;
  let nextId = 0;

  function failPending(error: unknown) {
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  }

  function thread(): Worker {
    if (worker) return worker;
    const started = new Worker(new URL('./compilerWorker.ts', import.meta.url));
    started.on('message', (reply: CompileReply) => {
      const waiting = pending.get(reply.id);
      pending.delete(reply.id);
      // Idle, the thread must not keep the process alive.
      if (pending.size === 0) started.unref();
      if (!waiting) return;
      if ('compiled' in reply) {
        waiting.resolve(reply.compiled);
      } else if ('refused' in reply) {
        const { code, reason, position } = reply.refused;
        waiting.reject(new AnalyticsQueryError(code, reason, position));
      } else {
        waiting.reject(new Error(`The analytics compiler failed: ${reply.failed}`));
      }
    });
    started.on('error', failPending);
    started.on('exit', (code) => {
      if (worker === started) worker = undefined;
      failPending(new Error(`The analytics compiler thread exited with code ${code}`));
    });
    worker = started;
    return started;
  }

  return {
    compile(query, options) {
      return new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        const target = thread();
        target.ref();
        target.postMessage({ id, query, options } satisfies CompileRequest);
      });
    },
    async close() {
      const stopping = worker;
      worker = undefined;
      await stopping?.terminate();
    },
  };
}
