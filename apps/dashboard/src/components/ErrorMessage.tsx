import { trpcErrorCode } from '../trpc.ts';

interface ErrorMessageProps {
  error: Error;
  /** Offered for failures a second try may fix (not for 403s: the missing permission will still be missing). */
  onRetry?: () => void;
}

/** The server's message, which names the problem (a 403 names the missing permission). */
export function ErrorMessage({ error, onRetry }: ErrorMessageProps) {
  const forbidden = trpcErrorCode(error) === 'FORBIDDEN';
  return (
    <div className="error" role="alert">
      <p>
        {forbidden ? <strong>Not allowed: </strong> : null}
        {error.message}
      </p>
      {onRetry && !forbidden ? (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
