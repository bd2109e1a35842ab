import { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import { isReadOnly } from './access.ts';
import { formatWait, throttleSeconds } from './signInWait.ts';

const refusal = (httpStatus: number, message: string) =>
  new TRPCClientError(message, { result: { error: { code: -32_029, message, data: { httpStatus } } } });

describe('a throttled sign-in', () => {
  it('waits as long as the server says, from its own words', () => {
    expect(throttleSeconds(refusal(429, 'Too many failed sign-ins to this email. Try again in 540 s.'))).toBe(540);
    expect(throttleSeconds(refusal(429, 'Too many failed sign-ins from this address. Try again in 7 s.'))).toBe(7);
  });

  it('waits for nothing else: a wrong password, another error, none', () => {
    expect(throttleSeconds(refusal(401, 'The email or password is wrong.'))).toBeUndefined();
    expect(throttleSeconds(new Error('Try again in 5 s.'))).toBeUndefined();
    expect(throttleSeconds(null)).toBeUndefined();
  });

  it('says the wait in minutes and seconds', () => {
    expect(formatWait(540)).toBe('9 min');
    expect(formatWait(75)).toBe('1 min 15 s');
    expect(formatWait(8)).toBe('8 s');
  });
});

describe('a session that may change nothing', () => {
  it('is one whose every permission is a read', () => {
    expect(isReadOnly(['api.*.read_api', 'api.*.read_key', 'identity.*.read_identity'])).toBe(true);
    expect(isReadOnly(['api.*.read_api', 'api.*.create_key'])).toBe(false);
    // decrypt_key and verify_key are not reads: a viewer's role holds neither.
    expect(isReadOnly(['api.*.read_key', 'api.*.decrypt_key'])).toBe(false);
  });
});
