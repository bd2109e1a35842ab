import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newSignedSession, openSignedSession } from './sessions.ts';

const signingKey = randomBytes(32);

describe('signed dashboard sessions', () => {
  it('opens a cookie value it signed and returns its token', () => {
    const { token, cookieValue } = newSignedSession(signingKey);
    expect(openSignedSession(signingKey, cookieValue)).toBe(token);
  });

  it('refuses a value signed with another key', () => {
    const { cookieValue } = newSignedSession(randomBytes(32));
    expect(openSignedSession(signingKey, cookieValue)).toBeUndefined();
  });

  it('refuses a token with a signature of another token', () => {
    const first = newSignedSession(signingKey);
    const second = newSignedSession(signingKey);
    const forged = `${first.token}.${second.cookieValue.split('.')[1]}`;
    expect(openSignedSession(signingKey, forged)).toBeUndefined();
  });

  it.each(['', 'abc', 'a.b', `${'a'.repeat(43)}.`, `${'a'.repeat(43)}.${'b'.repeat(44)}`])(
    'refuses the malformed value %j',
    (value) => {
      expect(openSignedSession(signingKey, value)).toBeUndefined();
    },
  );

  it('mints a different token each time', () => {
    expect(newSignedSession(signingKey).token).not.toBe(newSignedSession(signingKey).token);
  });
});
