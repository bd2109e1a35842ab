import { useState } from 'react';
import { isUnauthorized, problemText } from './api.ts';

/**
 * A change the customer makes: whether it runs, its error in words, and its result. A 401 ends the
 * session on the page at once (revoked, expired, the portal turned off) rather than showing an error.
 */
export function useAction<TInput, TResult>(run: (input: TInput) => Promise<TResult>, onSessionEnd: () => void) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [result, setResult] = useState<TResult | undefined>();
  return {
    pending,
    error,
    result,
    reset() {
      setPending(false);
      setError(undefined);
      setResult(undefined);
    },
    /** Resolves whether it succeeded (its answer is `result`). */
    async run(input: TInput): Promise<boolean> {
      setPending(true);
      setError(undefined);
      try {
        const answer = await run(input);
        setResult(answer);
        return true;
      } catch (failure) {
        if (isUnauthorized(failure)) onSessionEnd();
        else setError(problemText(failure));
        return false;
      } finally {
        setPending(false);
      }
    },
  };
}
