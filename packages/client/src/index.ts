import type { AppRouter } from '@keyplane/procedures';
import { createTRPCClient, httpBatchLink, type TRPCClient, type TRPCLink } from '@trpc/client';
import type {
  AnyTRPCProcedure,
  AnyTRPCRootTypes,
  AnyTRPCRouter,
  inferProcedureInput,
  inferProcedureOutput,
  inferRouterInputs,
  inferRouterOutputs,
  TRPCBuiltRouter,
  TRPCMutationProcedure,
  TRPCQueryProcedure,
  TRPCRouterRecord,
} from '@trpc/server';
import { observable } from '@trpc/server/observable';
import { type KeyplaneErrorShape, toKeyplaneError } from './error.ts';

export { TRPCClientError } from '@trpc/client';
export { KeyplaneError } from './error.ts';

export interface KeyplaneClientOptions {
  /** Where the Keyplane server is, e.g. `http://localhost:7070`. */
  baseUrl: string;
  rootKey: string;
  /** The `fetch` the client sends its requests with (default: the global one). */
  fetch?: typeof globalThis.fetch;
}

/**
 * A procedure as a client sees it: what it takes and what it answers, nothing of the server. Written
 * out (not the server's procedure type) so that the published declarations stand on their own.
 */
type ClientProcedure<TProcedure extends AnyTRPCProcedure> = TProcedure['_def']['type'] extends 'mutation'
  ? TRPCMutationProcedure<{
      input: inferProcedureInput<TProcedure>;
      output: inferProcedureOutput<TProcedure>;
      meta: object;
    }>
  : TRPCQueryProcedure<{
      input: inferProcedureInput<TProcedure>;
      output: inferProcedureOutput<TProcedure>;
      meta: object;
    }>;

type ClientRecord<TRecord> = TRecord extends TRPCRouterRecord
  ? {
      [TKey in keyof TRecord]: TRecord[TKey] extends AnyTRPCProcedure
        ? ClientProcedure<TRecord[TKey]>
        : ClientRecord<TRecord[TKey]>;
    }
  : never;

/** Turns every failure below into a KeyplaneError, the one error class callers catch. */
const keyplaneErrors: TRPCLink<AnyTRPCRouter> =
  () =>
  ({ op, next }) =>
    observable((observer) =>
      next(op).subscribe({
        next: (result) => observer.next(result),
        error: (cause) => observer.error(toKeyplaneError(cause)),
        complete: () => observer.complete(),
      }),
    );

/**
 * The client of a router, typed by its procedures and error shape alone. The server's context
 * (database, caches) is left out: the return type is spelled out in full wherever this is called,
 * which is how the published declarations of `createKeyplaneClient` name no server module
 * (docs/architecture.md, Packages).
 */
function createClient<TRoot extends AnyTRPCRootTypes, TRecord extends TRPCRouterRecord>(
  options: KeyplaneClientOptions,
): TRPCClient<
  TRPCBuiltRouter<
    { ctx: object; meta: object; errorShape: TRoot['errorShape']; transformer: false },
    {
      [TKey in keyof TRecord]: TRecord[TKey] extends AnyTRPCProcedure
        ? ClientProcedure<TRecord[TKey]>
        : ClientRecord<TRecord[TKey]>;
    }
  >
> {
  return createTRPCClient({
    links: [
      keyplaneErrors,
      // Calls made in the same tick go out as one request; every call is a POST, queries included.
      httpBatchLink<AnyTRPCRouter>({
        url: `${options.baseUrl.replace(/\/$/, '')}/trpc`,
        methodOverride: 'POST',
        // The server takes batches of at least 10 calls (LIMIT_TRPC_BATCH_SIZE, docs/contract.md#limits).
        maxItems: 10,
        headers: { authorization: `Bearer ${options.rootKey}` },
        fetch: options.fetch,
      }),
    ],
  });
}

/**
 * A typed client for internal TypeScript callers: every procedure (public or not) at `/trpc`, with
 * inputs and outputs inferred from the server's router. A failed call rejects with a KeyplaneError.
 */
export function createKeyplaneClient(options: KeyplaneClientOptions) {
  return createClient<AppRouter['_def']['_config']['$types'], AppRouter['_def']['record']>(options);
}

export type KeyplaneClient = ReturnType<typeof createKeyplaneClient>;
/** The server's router as the client knows it: procedures, inputs, outputs and error shape. */
export type KeyplaneRouter = KeyplaneClient extends TRPCClient<infer TRouter> ? TRouter : never;
export type RouterInputs = inferRouterInputs<KeyplaneRouter>;
export type RouterOutputs = inferRouterOutputs<KeyplaneRouter>;

// The server's error shape must be the one KeyplaneError reads: a compile error here says they drifted.
const serverErrorShape: KeyplaneErrorShape = null as unknown as AppRouter['_def']['_config']['$types']['errorShape'];
void serverErrorShape;
