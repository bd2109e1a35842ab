import { trpcErrorCode } from '../trpc.ts';

interface ErrorMessageProps {
  error: Error;
  /** Offered for failures a second try may fix (not for 403s: the missing permission will still be missing). */
  onRetry?: () => void;
}

interface ValidationIssue {
  path: (string | number)[];
  message: string;
}

function isValidationIssue(value: unknown): value is ValidationIssue {
  if (typeof value !== 'object' || value === null) return false;
  const { path, message } = value as Record<string, unknown>;
  return Array.isArray(path) && typeof message === 'string';
}

/**
 * The lines of an error message. tRPC sends a rejected input's message as the validator's JSON list
 * of issues; each becomes "field: problem" (`ratelimits[0].name: Too small …`).
 */
function messageLines(error: Error): string[] {
  if (trpcErrorCode(error) !== 'BAD_REQUEST' || !error.message.startsWith('[')) return [error.message];
  try {
    const issues: unknown = JSON.parse(error.message);
    if (!Array.isArray(issues) || !issues.every(isValidationIssue)) return [error.message];
    return issues.map(({ path, message }) => {
      const field = path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('');
      return field ? `${field.replace(/^\./, '')}: ${message}` : message;
    });
  } catch {
    return [error.message];
  }
}

/**
 * What an error says of one input field, if it is about that field: a validation issue at its path
 * (`url: Invalid URL`), or a refusal that names it first (`` `url` points at a private address``).
 */
export function fieldProblem(error: Error | null, field: string): string | undefined {
  if (!error || trpcErrorCode(error) !== 'BAD_REQUEST') return undefined;
  // Shown under the field, the field's name at its start reads as "It".
  if (error.message.startsWith(`\`${field}\` `)) return `It ${error.message.slice(field.length + 3)}`;
  const line = messageLines(error).find((candidate) => candidate.startsWith(`${field}: `));
  return line?.slice(field.length + 2);
}

/** The server's message, which names the problem (a 403 names the missing permission). */
export function ErrorMessage({ error, onRetry }: ErrorMessageProps) {
  const forbidden = trpcErrorCode(error) === 'FORBIDDEN';
  const lines = messageLines(error);
  return (
    <div className="error" role="alert">
      {lines.length === 1 ? (
        <p>
          {forbidden ? <strong>Not allowed: </strong> : null}
          {lines[0]}
        </p>
      ) : (
        <ul>
          {lines.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      {onRetry && !forbidden ? (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
