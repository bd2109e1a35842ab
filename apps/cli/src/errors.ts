/** Arguments the CLI cannot act on: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Well-formed arguments that the command still could not carry out: exit code 1. */
export class CommandError extends Error {
  override name = 'CommandError';
}
