import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newSignedSession, openSignedSession, signInThrottleKey } from './sessions.ts';

const signingKey = randomBytes(32);

describe('signed dashboard sessions', () => {
  it('opens a cookie value it signed and returns its token', () => {
    const { token, cookieValue } = newSignedSession(signingKey);
    expect(openSignedSession(signingKey, cookieValue)).toEqual({ kind: 'rootKey', token });
  });

  it("opens a person's session as a person's, and refuses one turned into the other kind", () => {
    const person = newSignedSession(signingKey, 'person');
    expect(person.cookieValue.startsWith('p.')).toBe(true);
    expect(openSignedSession(signingKey, person.cookieValue)).toEqual({ kind: 'person', token: person.token });
    expect(openSignedSession(signingKey, person.cookieValue.slice(2))).toBeUndefined();
    const rootKey = newSignedSession(signingKey);
    expect(openSignedSession(signingKey, `p.${rootKey.cookieValue}`)).toBeUndefined();
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

describe('signInThrottleKey', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::99', '2001:db8:1:2::/64'],
    ['2001:DB8:0001:0002:ffff::1%eth0', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['not an address', 'not an address'],
    ['1:2:3', '1:2:3'],
  ])('counts %s as %s', (address, key) => {
    expect(signInThrottleKey(address)).toBe(key);
  });
});
