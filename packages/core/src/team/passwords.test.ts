import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { hashKey } from '../keys.ts';
import {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  passwordProblem,
  requireAcceptablePassword,
  verifyPassword,
} from './passwords.ts';
import { newSecretToken } from './tokens.ts';

describe('passwordProblem', () => {
  it(`wants at least ${MIN_PASSWORD_LENGTH} characters, counted as typed`, async () => {
    expect(await passwordProblem('a'.repeat(MIN_PASSWORD_LENGTH - 1))).toBe('too_short');
    expect(await passwordProblem('')).toBe('too_short');
    // Eleven emoji are 22 UTF-16 units, and still eleven characters.
    expect(await passwordProblem('🔑'.repeat(MIN_PASSWORD_LENGTH - 1))).toBe('too_short');
    expect(await passwordProblem('🔑'.repeat(MIN_PASSWORD_LENGTH))).toBeUndefined();
  });

  it(`refuses more than ${MAX_PASSWORD_LENGTH} characters`, async () => {
    expect(await passwordProblem('x'.repeat(MAX_PASSWORD_LENGTH))).toBeUndefined();
    expect(await passwordProblem('x'.repeat(MAX_PASSWORD_LENGTH + 1))).toBe('too_long');
  });

  it('refuses the most common passwords long enough to pass, in any case', async () => {
    expect(await passwordProblem('qwerty123456')).toBe('too_common');
    expect(await passwordProblem('1qaz2wsx3edc')).toBe('too_common');
    expect(await passwordProblem('LeaveMeAlone')).toBe('too_common');
  });

  it('accepts a long uncommon password', async () => {
    expect(await passwordProblem('correct horse battery staple')).toBeUndefined();
  });
});

describe('requireAcceptablePassword', () => {
  it('throws a 400 naming the rule, never the password', async () => {
    const error = await requireAcceptablePassword('qwerty123456').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ status: 400, fieldErrors: [{ location: 'body.password' }] });
    expect(JSON.stringify({ ...(error as DomainError), message: (error as DomainError).message })).not.toContain(
      'qwerty123456',
    );
    await expect(requireAcceptablePassword('short')).rejects.toMatchObject({
      message: `A password has at least ${MIN_PASSWORD_LENGTH} characters.`,
    });
  });

  it('lets an acceptable password through', async () => {
    await expect(requireAcceptablePassword('correct horse battery staple')).resolves.toBeUndefined();
  });
});

describe('hashPassword and verifyPassword', () => {
  it('hashes with argon2id and a salt of its own each time', async () => {
    const [first, second] = await Promise.all([hashPassword('correct horse'), hashPassword('correct horse')]);
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('correct horse');
  });

  it('verifies the password and nothing else', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(await verifyPassword(stored, 'correct horse battery staple')).toBe(true);
    expect(await verifyPassword(stored, 'correct horse battery stapl')).toBe(false);
    expect(await verifyPassword(stored, '')).toBe(false);
  });

  it('answers false for an account without a hash, after doing the same work', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(await verifyPassword(null, 'correct horse battery staple')).toBe(false);
    expect(await verifyPassword(undefined, 'anything')).toBe(false);
    const timeOf = async (run: () => Promise<unknown>) => {
      const started = performance.now();
      await run();
      return performance.now() - started;
    };
    await verifyPassword(null, 'warm up');
    const [present, absent] = [
      await timeOf(() => verifyPassword(stored, 'wrong password')),
      await timeOf(() => verifyPassword(null, 'wrong password')),
    ];
    // Both run one argon2id verification; without the stand-in hash an absent account would answer at once.
    expect(absent).toBeGreaterThan(present / 4);
  });

  it('answers false for a stored value that is not a hash', async () => {
    expect(await verifyPassword('not a hash', 'not a hash')).toBe(false);
  });
});

describe('newSecretToken', () => {
  it('makes a random token and stores only its SHA-256, as root keys are', () => {
    const { token, tokenHash } = newSecretToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokenHash).toBe(hashKey(token));
    expect(newSecretToken().token).not.toBe(token);
  });
});
