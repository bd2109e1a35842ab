import type { AnyTRPCRouter } from '@trpc/server';
import { type Problem, problemFromError, problems } from './problem.ts';

type ProcedureType = 'query' | 'mutation' | 'subscription';

/** What tRPC's own callers (`callTRPCProcedure`, `createCaller`) pass a procedure: its whole pipeline runs. */
interface ProcedureCall {
  ctx: unknown;
  type: ProcedureType;
  path: string;
  getRawInput(): Promise<unknown>;
  input: undefined;
  signal: undefined;
  batchIndex: number;
}

/** A procedure of the router, as tRPC builds it: callable with a call's options. */
interface CallableProcedure {
  (call: ProcedureCall): Promise<unknown>;
  _def: { type: ProcedureType; meta?: { public?: boolean; list?: boolean } };
}

interface PublicProcedure {
  type: ProcedureType;
  list: boolean;
  call: CallableProcedure;
}

/**
 * `/v2/<path>` table, built once: only procedures marked `meta.public` are reachable. It holds the
 * procedures themselves, so a call does not look its path up again in the router (the router has
 * no lazy parts for `callTRPCProcedure` to load).
 */
export function publicProcedureTable(router: AnyTRPCRouter): Map<string, PublicProcedure> {
  const table = new Map<string, PublicProcedure>();
  for (const [path, procedure] of Object.entries(router._def.procedures as Record<string, CallableProcedure>)) {
    const def = procedure._def;
    if (def.meta?.public === true && def.type !== 'subscription') {
      table.set(path, { type: def.type, list: def.meta.list === true, call: procedure });
    }
  }
  return table;
}

export type DispatchResult =
  | { ok: true; data: unknown; list: boolean }
  | { ok: false; problem: Problem; cause?: unknown };

/**
 * Calls a public procedure with tRPC's own pipeline (middleware, input and output validation), so
 * `/v2` and `/trpc` run exactly the same code. Queries and mutations are both called by POST.
 */
export async function dispatch<TContext>(options: {
  table: Map<string, PublicProcedure>;
  path: string;
  input: unknown;
  ctx: TContext;
}): Promise<DispatchResult> {
  const procedure = options.table.get(options.path);
  if (!procedure) return { ok: false, problem: problems.unknownProcedure(options.path) };
  try {
    const data = await procedure.call({
      ctx: options.ctx,
      type: procedure.type,
      path: options.path,
      getRawInput: async () => options.input,
      input: undefined,
      signal: undefined,
      batchIndex: 0,
    });
    return { ok: true, data, list: procedure.list };
  } catch (cause) {
    return { ok: false, problem: problemFromError(cause), cause };
  }
}
