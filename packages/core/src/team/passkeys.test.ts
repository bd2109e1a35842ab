import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { hashKey } from '../keys.ts';
import {
  type AuthenticationResponseJSON,
  PASSKEY_CHALLENGE_LIFETIME_MS,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  relyingPartyOf,
  verifyPasskeySignIn,
} from './passkeys.ts';

const rp = relyingPartyOf('https://keys.example.com:8443');

/** An answer whose client data names this challenge; its signature is never reached in these cases. */
const answerTo = (challenge: string): AuthenticationResponseJSON => ({
  id: 'cred',
  rawId: 'cred',
  type: 'public-key',
  clientExtensionResults: {},
  response: {
    clientDataJSON: Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: rp.origin })).toString(
      'base64url',
    ),
    authenticatorData: 'AA',
    signature: 'AA',
  },
});

async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(error)}`);
  return error;
}

describe('relyingPartyOf', () => {
  it('binds passkeys to the host name and expects the whole origin', () => {
    expect(rp).toEqual({ id: 'keys.example.com', origin: 'https://keys.example.com:8443', name: 'Keyplane' });
    expect(relyingPartyOf('http://localhost:5173/dashboard/').origin).toBe('http://localhost:5173');
  });
});

describe('options', () => {
  it('stores only the hash of each fresh challenge, for a few minutes', async () => {
    const first = await passkeySignInOptions(rp, 1_000);
    const second = await passkeySignInOptions(rp, 1_000);
    expect(first.options.challenge).not.toBe(second.options.challenge);
    expect(first.challenge).toEqual({
      challengeHash: hashKey(first.options.challenge),
      expiresAt: 1_000 + PASSKEY_CHALLENGE_LIFETIME_MS,
    });
    expect(first.options).toMatchObject({ rpId: 'keys.example.com', userVerification: 'required' });
    expect(first.options.allowCredentials).toBeUndefined();
  });

  it('asks for a discoverable, verified passkey for the person, and not one they have', async () => {
    const { options } = await passkeyRegistrationOptions(
      rp,
      { userId: 'user_1', email: 'ada@example.com', name: 'Ada' },
      [{ credentialId: 'abc', transports: ['usb'] }],
      0,
    );
    expect(options).toMatchObject({
      rp: { id: 'keys.example.com', name: 'Keyplane' },
      user: { id: Buffer.from('user_1').toString('base64url'), name: 'ada@example.com', displayName: 'Ada' },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      excludeCredentials: [{ id: 'abc', type: 'public-key', transports: ['usb'] }],
    });
  });
});

describe('verifyPasskeySignIn', () => {
  it('uses the challenge up before anything else, and refuses an unknown one without looking the passkey up', async () => {
    const consumed: string[] = [];
    let lookedUp = false;
    const ports = {
      consumeChallenge: async (hash: string) => {
        consumed.push(hash);
        return false;
      },
      findPasskey: async () => {
        lookedUp = true;
        return undefined;
      },
    };
    const error = await rejection(verifyPasskeySignIn(rp, answerTo('chal'), ports));
    expect(error.status).toBe(401);
    expect(consumed).toEqual([hashKey('chal')]);
    expect(lookedUp).toBe(false);
  });

  it('refuses an unknown passkey with the same 401 as a bad challenge', async () => {
    const unknown = await rejection(
      verifyPasskeySignIn(rp, answerTo('chal'), {
        consumeChallenge: async () => true,
        findPasskey: async () => undefined,
      }),
    );
    const badChallenge = await rejection(
      verifyPasskeySignIn(rp, answerTo('chal'), {
        consumeChallenge: async () => false,
        findPasskey: async () => undefined,
      }),
    );
    expect(unknown.status).toBe(401);
    expect(unknown.message).toBe(badChallenge.message);
  });

  it('answers 400 for client data it cannot read, naming the field', async () => {
    const answer = answerTo('chal');
    answer.response.clientDataJSON = Buffer.from('not json').toString('base64url');
    const error = await rejection(
      verifyPasskeySignIn(rp, answer, { consumeChallenge: async () => true, findPasskey: async () => undefined }),
    );
    expect(error.status).toBe(400);
    expect(error.fieldErrors[0]?.location).toBe('body.response.response.clientDataJSON');
  });
});
