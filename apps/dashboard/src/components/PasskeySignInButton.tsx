import {
  browserSupportsWebAuthn,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
} from '@simplewebauthn/browser';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Fingerprint } from 'lucide-react';
import { clearSessionEndReason } from '../sessionEnd.ts';
import { trpc, trpcClient, trpcErrorCode } from '../trpc.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
import { passkeyPromptError } from './PasskeysSection.tsx';

/**
 * "Sign in with a passkey": the browser offers the passkeys this device has for the service, with
 * no email asked first, and the server signs their owner in to the workspace they used last.
 */
export function PasskeySignInButton() {
  const queryClient = useQueryClient();
  const signIn = useMutation({
    mutationFn: async () => {
      const optionsJSON = await trpcClient.account.passkeySignInOptions.mutate();
      let response: Awaited<ReturnType<typeof startAuthentication>>;
      try {
        // Made by the server's SimpleWebAuthn for this browser's: the API types them by shape only.
        response = await startAuthentication({ optionsJSON: optionsJSON as PublicKeyCredentialRequestOptionsJSON });
      } catch (error) {
        throw passkeyPromptError(error);
      }
      try {
        return await trpcClient.account.signInWithPasskey.mutate({ response });
      } catch (error) {
        // A refused passkey ends no session (there is none): as a plain error, the app's handler of
        // 401s (queryClient.ts) leaves the sign-in page, and this message on it, alone.
        if (trpcErrorCode(error) === 'UNAUTHORIZED' && error instanceof Error) throw new Error(error.message);
        throw error;
      }
    },
    onSuccess: () => {
      clearSessionEndReason();
      return queryClient.invalidateQueries({ queryKey: trpc.dashboard.session.queryKey() });
    },
  });
  if (!browserSupportsWebAuthn()) return null;
  return (
    <div className="mt-4">
      {signIn.error ? <ErrorMessage error={signIn.error} /> : null}
      <button type="button" className="w-full" onClick={() => signIn.mutate()} disabled={signIn.isPending}>
        <Fingerprint size={16} aria-hidden="true" />{' '}
        {signIn.isPending ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
      </button>
    </div>
  );
}
