import type { AnyTRPCRouter } from '@trpc/server';
import { callTRPCProcedure } from '@trpc/server';
import { type Problem, problemFromError, problems } from './problem.ts';

type ProcedureType = 'query' | 'mutation' | 'subscription';

interface PublicProcedure {
  type: ProcedureType;
  list: boolean;
}

/** `/v2/<path>` table, built once: only procedures marked `meta.public` are reachable. */
export function publicProcedureTable(router: AnyTRPCRouter): Map<string, PublicProcedure> {
  const table = new Map<string, PublicProcedure>();
  for (const [path, procedure] of Object.entries(router._def.procedures as Record<string, unknown>)) {
    const def = (procedure as { _def: { type: ProcedureType; meta?: { public?: boolean; list?: boolean } } })._def;
    if (def.meta?.public === true && def.type !== 'subscription') {
      table.set(path, { type: def.type, list: def.meta.list === true });
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
  router: AnyTRPCRouter;
  table: Map<string, PublicProcedure>;
  path: string;
  input: unknown;
  ctx: TContext;
}): Promise<DispatchResult> {
  const procedure = options.table.get(options.path);
  if (!procedure) return { ok: false, problem: problems.unknownProcedure(options.path) };
  try {
    const data = await callTRPCProcedure({
      router: options.router,
      path: options.path,
      type: procedure.type,
      ctx: options.ctx,
      getRawInput: async () => options.input,
      signal: undefined,
      batchIndex: 0,
    });
    return { ok: true, data, list: procedure.list };
  } catch (cause) {
    return { ok: false, problem: problemFromError(cause), cause };
  }
}
