import type { AppRouter } from '@keyplane/procedures';
import type { QueryKey, UseMutationOptions, UseQueryOptions } from '@tanstack/react-query';
import { createTRPCClient, getUntypedClient, httpBatchLink, type TRPCClient, TRPCClientError } from '@trpc/client';
import type { inferRouterOutputs } from '@trpc/server';

export type RouterOutputs = inferRouterOutputs<AppRouter>;

/**
 * The server could not be asked, or something other than Keyplane answered (a proxy's 502 page):
 * the message says what happened and what to do, in place of "Failed to fetch" or a JSON parse error.
 */
export class ServerUnreachableError extends Error {
  override name = 'ServerUnreachableError';
}

async function fetchFromServer(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(input, init);
  } catch (error) {
    if (init?.signal?.aborted) throw error;
    throw new ServerUnreachableError(
      navigator.onLine
        ? 'Could not reach the Keyplane server. Check your connection and that the server is running, then try again.'
        : 'You are offline. Reconnect to the network, then try again.',
    );
  }
  // Keyplane answers every /trpc call with JSON; anything else came from something in between.
  if (!response.headers.get('content-type')?.includes('application/json')) {
    await response.body?.cancel();
    throw new ServerUnreachableError(
      `The Keyplane server did not answer (HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}). It may be restarting, or a proxy in front of it failed. Try again in a moment.`,
    );
  }
  return response;
}

/** The typed client, for calls made outside a query or mutation hook (bulk actions, exports). */
export const trpcClient: TRPCClient<AppRouter> = createTRPCClient<AppRouter>({
  links: [
    httpBatchLink({
      url: '/trpc',
      fetch: fetchFromServer,
      // Queries go by POST too: analytics SQL and filters stay out of URLs and access logs.
      methodOverride: 'POST',
      // The server takes batches of at least 10 calls (LIMIT_TRPC_BATCH_SIZE, docs/contract.md#limits).
      maxItems: 10,
      // The server's CSRF guard for cookie-authenticated calls: a cross-site form cannot set it.
      headers: { 'x-keyplane-dashboard': '1' },
    }),
  ],
});

const untypedClient = getUntypedClient(trpcClient);

// @trpc/tanstack-react-query has no release matching @trpc/server 11.25.2 in the registry, so this
// is the small part of it the dashboard uses: `trpc.a.b.queryOptions(input)`, `trpc.a.b.mutationOptions()`
// and `trpc.a.pathKey()`, typed from the router through @trpc/client.

type Client = TRPCClient<AppRouter>;
type AnyResolver = (...args: never[]) => Promise<unknown>;
type QueryOptionsExtras<TOutput> = Omit<UseQueryOptions<TOutput, Error, TOutput, QueryKey>, 'queryKey' | 'queryFn'>;
type MutationOptionsExtras<TInput, TOutput> = Omit<UseMutationOptions<TOutput, Error, TInput>, 'mutationFn'>;

interface QueryProcedure<TInput, TOutput> {
  queryOptions: undefined extends TInput
    ? (input?: TInput, opts?: QueryOptionsExtras<TOutput>) => UseQueryOptions<TOutput, Error, TOutput, QueryKey>
    : (input: TInput, opts?: QueryOptionsExtras<TOutput>) => UseQueryOptions<TOutput, Error, TOutput, QueryKey>;
  queryKey: (input?: TInput) => QueryKey;
  /** Every query of this procedure, whatever its input. */
  pathKey: () => QueryKey;
}

interface MutationProcedure<TInput, TOutput> {
  mutationOptions: (opts?: MutationOptionsExtras<TInput, TOutput>) => UseMutationOptions<TOutput, Error, TInput>;
}

type OptionsProxy<TNode> = {
  [K in keyof TNode]: TNode[K] extends { query: infer Resolver extends AnyResolver }
    ? QueryProcedure<Parameters<Resolver>[0], Awaited<ReturnType<Resolver>>>
    : TNode[K] extends { mutate: infer Resolver extends AnyResolver }
      ? MutationProcedure<Parameters<Resolver>[0], Awaited<ReturnType<Resolver>>>
      : OptionsProxy<TNode[K]> & { pathKey: () => QueryKey };
};

/** `[...path]` names every query under a router or procedure; `[...path, input]` one query. */
function queryKeyOf(path: readonly string[], input: unknown): QueryKey {
  return input === undefined ? [...path] : [...path, input];
}

function optionsProxy(path: readonly string[]): unknown {
  const dotted = path.join('.');
  const helpers: Record<string, unknown> = {
    queryOptions: (input: unknown, opts?: object) => ({
      ...opts,
      queryKey: queryKeyOf(path, input),
      queryFn: ({ signal }: { signal: AbortSignal }) => untypedClient.query(dotted, input, { signal }),
    }),
    queryKey: (input?: unknown) => queryKeyOf(path, input),
    pathKey: () => [...path],
    mutationOptions: (opts?: object) => ({
      ...opts,
      mutationKey: [...path],
      mutationFn: (input: unknown) => untypedClient.mutation(dotted, input),
    }),
  };
  return new Proxy(helpers, {
    get: (target, key) => {
      if (typeof key !== 'string') return undefined;
      return key in target ? target[key] : optionsProxy([...path, key]);
    },
  });
}

export const trpc = optionsProxy([]) as OptionsProxy<Client>;

/** The tRPC error code (`UNAUTHORIZED`, `FORBIDDEN`, `NOT_FOUND`, …) of a failed call, if it was one. */
export function trpcErrorCode(error: unknown): string | undefined {
  return error instanceof TRPCClientError ? error.data?.code : undefined;
}

/**
 * A 429 that clears within seconds: analytics busy, the workspace's concurrent analytics queries
 * (those of a filter just changed may still run), its API rate limit. An hourly query quota does not.
 */
export function isBriefRefusal(error: unknown): boolean {
  if (!(error instanceof TRPCClientError) || error.data?.httpStatus !== 429) return false;
  const type: unknown = error.data?.type;
  return !(typeof type === 'string' && type.endsWith('/query_quota_exceeded'));
}

/** 4xx answers are final: retrying them only delays the message. */
export function isClientError(error: unknown): boolean {
  if (!(error instanceof TRPCClientError)) return false;
  const status: unknown = error.data?.httpStatus;
  return typeof status === 'number' && status >= 400 && status < 500;
}
