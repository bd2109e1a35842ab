import { randomBytes } from 'node:crypto';
import { hash, type Options, verify } from '@node-rs/argon2';
import { weakPassword } from '../errors.ts';

import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './passwordPolicy.ts';

export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH };

// Through @node-rs/argon2 (prebuilt, no compile), which writes and checks the PHC strings that
// node:crypto's argon2 would leave to us. argon2id with OWASP's first recommended setting: 19 MiB,
// 2 passes, 1 lane. The parameters travel in the PHC string each hash is stored as, so raising them
// later leaves older hashes verifiable. `algorithm: 2` is the package's `Algorithm.Argon2id`, a
// const enum that verbatimModuleSyntax cannot read.
const ARGON2_OPTIONS: Options = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export type PasswordProblem = 'too_short' | 'too_long' | 'too_common';

const PROBLEM_DETAILS: Record<PasswordProblem, string> = {
  too_short: `A password has at least ${MIN_PASSWORD_LENGTH} characters.`,
  too_long: `A password has at most ${MAX_PASSWORD_LENGTH} characters.`,
  too_common: 'This password is among the most commonly used ones: choose another.',
};

let commonPasswords: Promise<ReadonlySet<string>> | undefined;

/**
 * The most common passwords long enough to pass the length rule, lower-cased (zxcvbn-ts' list of
 * about 49,000): loaded on first use, since decompressing the list costs about 0.1 s.
 */
function loadCommonPasswords(): Promise<ReadonlySet<string>> {
  commonPasswords ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) =>
      new Set(
        dictionary['passwords-common']
          .filter((password) => [...password].length >= MIN_PASSWORD_LENGTH)
          .map((password) => password.toLowerCase()),
      ),
  );
  return commonPasswords;
}

/** Why the policy refuses this password, or undefined when it accepts it. */
export async function passwordProblem(password: string): Promise<PasswordProblem | undefined> {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return 'too_short';
  if (length > MAX_PASSWORD_LENGTH) return 'too_long';
  if ((await loadCommonPasswords()).has(password.toLowerCase())) return 'too_common';
  return undefined;
}

/**
 * 400 naming what is wrong with the password (never the password) unless the policy accepts it;
 * `field` is the request's field that carried it.
 */
export async function requireAcceptablePassword(password: string, field = 'password'): Promise<void> {
  const problem = await passwordProblem(password);
  if (problem) throw weakPassword(PROBLEM_DETAILS[problem], field);
}

/** The argon2id hash of a password, as a PHC string (`$argon2id$v=19$m=…`) with its own random salt. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

let absentHash: Promise<string> | undefined;

/**
 * Whether the password matches the stored hash. With no hash (no such account, or one without a
 * password) it still verifies against a hash of a random password and answers false, so the time
 * an answer takes does not tell whether the account exists.
 */
export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  if (storedHash === null || storedHash === undefined) {
    absentHash ??= hashPassword(randomBytes(16).toString('base64url'));
    await verify(await absentHash, password);
    return false;
  }
  try {
    return await verify(storedHash, password);
  } catch {
    // A stored value that is not a PHC string matches no password.
    return false;
  }
}
