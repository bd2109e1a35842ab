import { hashKey, MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { noteSessionEnd } from './sessionEnd.ts';
import { isBriefRefusal, isClientError, trpc, trpcErrorCode } from './trpc.ts';

const sessionKey = trpc.dashboard.session.queryKey();
const sessionHash = hashKey(sessionKey);
/** The ways in: their 401 says the credential or link was refused, not that a session ended. */
const signInHashes = new Set(
  [
    trpc.dashboard.signIn,
    trpc.account.signIn,
    trpc.account.setUpOwner,
    trpc.account.acceptInvitation,
    trpc.account.resetPassword,
  ].map((procedure) => hashKey(procedure.mutationOptions().mutationKey ?? [])),
);
const invitationPath = trpc.account.describeInvitation.pathKey();

/**
 * An UNAUTHORIZED answer anywhere means the session ended (expired, signed out elsewhere, root key
 * revoked): refetching the session then shows the sign-in page, saying why. The session query itself
 * and the ways in (sign-in forms, the one-time links' pages) report their own 401s.
 */
function endSessionOnUnauthorized(error: Error): void {
  if (trpcErrorCode(error) !== 'UNAUTHORIZED') return;
  noteSessionEnd(queryClient.getQueryData(sessionKey), error);
  void queryClient.resetQueries({ queryKey: sessionKey, exact: true });
}

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({
    onError: (error, query) => {
      // An invitation link refused is said on its page.
      if (query.queryKey[0] === invitationPath[0] && query.queryKey[1] === invitationPath[1]) return;
      if (query.queryHash !== sessionHash) endSessionOnUnauthorized(error);
      // A refresh of a known session that is refused: it still holds the session it knew.
      else if (trpcErrorCode(error) === 'UNAUTHORIZED') noteSessionEnd(queryClient.getQueryData(sessionKey), error);
    },
  }),
  mutationCache: new MutationCache({
    // A change can show on other screens (a deleted permission on a key's page): everything cached
    // becomes stale and is fetched again when next shown. Each mutation still refreshes its own screen.
    onSuccess: (): Promise<void> => queryClient.invalidateQueries({ refetchType: 'none' }),
    onError: (error, _variables, _context, mutation) => {
      if (!signInHashes.has(hashKey(mutation.options.mutationKey ?? []))) endSessionOnUnauthorized(error);
    },
  }),
  defaultOptions: {
    queries: {
      // One quick retry for a failure a second try may fix, so an error shows within a second rather
      // than after seconds of placeholders; every error message offers "Try again" after that. A
      // refusal that says "retry in a few seconds" is retried as it says, three times over 7 s.
      retry: (failures, error) => (isBriefRefusal(error) ? failures < 3 : !isClientError(error) && failures < 1),
      retryDelay: (failures, error) => (isBriefRefusal(error) ? 1000 * 2 ** failures : 500),
      // Offline, queries fail at once and say so, rather than waiting silently behind placeholders.
      networkMode: 'always',
      staleTime: 10_000,
    },
    mutations: { networkMode: 'always' },
  },
});
