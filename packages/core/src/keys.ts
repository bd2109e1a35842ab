import { hash, randomBytes } from 'node:crypto';
import { base58Encode } from './base58.ts';

export const DEFAULT_KEY_BYTES = 16;
const START_CHARS = 4;

export interface GeneratedKey {
  /** The plaintext, returned once to the caller and never stored. */
  key: string;
  hash: string;
  /** What listings show: the prefix and the first characters of the random part. */
  start: string;
}

/** `{prefix}_{base58(random bytes)}`, or the base58 part alone when there is no prefix. */
export function generateKey(options: { prefix?: string | null; byteLength?: number }): GeneratedKey {
  const random = base58Encode(randomBytes(options.byteLength ?? DEFAULT_KEY_BYTES));
  const head = options.prefix ? `${options.prefix}_` : '';
  const key = head + random;
  return { key, hash: hashKey(key), start: head + random.slice(0, START_CHARS) };
}

/** SHA-256 of the full key string, base64 (the reference product's format, so migrated hashes match). */
export function hashKey(key: string): string {
  // The one-shot form: this runs twice per verification (the root key and the key).
  return hash('sha256', key, 'base64');
}
