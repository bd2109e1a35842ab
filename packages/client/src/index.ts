import type { AppRouter } from '@keyplane/procedures';
import { createTRPCClient, httpLink } from '@trpc/client';

export type { AppRouter, RouterInputs, RouterOutputs } from '@keyplane/procedures';
export { TRPCClientError } from '@trpc/client';

export interface KeyplaneClientOptions {
  /** Where the Keyplane server is, e.g. `http://localhost:7070`. */
  baseUrl: string;
  rootKey: string;
  fetch?: typeof globalThis.fetch;
}

/**
 * A typed client for internal TypeScript callers: every procedure (public or not) at `/trpc`,
 * with inputs and outputs inferred from the server's router. Every call is a POST.
 */
export function createKeyplaneClient(options: KeyplaneClientOptions) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${options.baseUrl.replace(/\/$/, '')}/trpc`,
        methodOverride: 'POST',
        headers: { authorization: `Bearer ${options.rootKey}` },
        fetch: options.fetch,
      }),
    ],
  });
}

export type KeyplaneClient = ReturnType<typeof createKeyplaneClient>;
