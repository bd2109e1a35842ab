/**
 * The prefix a key was created with, read from its `start` (the prefix, `_`, then random base58
 * characters, which hold no `_`): everything before the last `_`; null for a key made without one.
 */
export function createdKeyPrefix(start: string): string | null {
  const separator = start.lastIndexOf('_');
  return separator > 0 ? start.slice(0, separator) : null;
}

/**
 * The prefix of a rerolled key: what the old `start` has before its first `_` (as the reference
 * product does, docs/contract.md#rerolling-keys), else the API's default prefix. A prefix holding
 * `_` (`pay_test`) is therefore cut short (`pay`).
 */
export function rerolledKeyPrefix(oldStart: string, defaultPrefix: string | null): string | null {
  const separator = oldStart.indexOf('_');
  return separator > 0 ? oldStart.slice(0, separator) : defaultPrefix;
}
