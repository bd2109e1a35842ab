import { randomBytes } from 'node:crypto';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { badRequest, unauthorized } from '../errors.ts';
import { hashKey } from '../keys.ts';

// Passkeys (WebAuthn) as docs/team-accounts.md describes them: the ceremonies' rules, with the
// challenge store and the passkey lookup handed in as ports, so that any node can check an answer
// to a challenge another node handed out.

export type { AuthenticationResponseJSON, RegistrationResponseJSON };
/**
 * The options as the browser takes them. Their `extensions` are the only ones the service asks for
 * (credProps on registration, none on sign-in), typed so: the library's type of every extension
 * holds binary fields that do not survive as JSON types through tRPC.
 */
export type PasskeyRegistrationOptions = Omit<PublicKeyCredentialCreationOptionsJSON, 'extensions'> & {
  extensions?: { credProps?: boolean };
};
export type PasskeySignInOptions = Omit<PublicKeyCredentialRequestOptionsJSON, 'extensions'>;

/** How long a challenge can be answered: the browser's own wait (the options' timeout) and some slack. */
export const PASSKEY_CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;
const CEREMONY_TIMEOUT_MS = 2 * 60 * 1000;
/**
 * Sign-in challenges one address may ask for per sign-in throttle window: anyone may ask, and each
 * is a row until it expires, so an address asking for more is refused (429) as a guessing one is.
 */
export const PASSKEY_SIGN_IN_CHALLENGES_ALLOWED = 100;

/** The key an address's sign-in challenges are counted under, apart from its failed sign-ins. */
export const passkeyChallengeThrottleKey = (addressKey: string) => `passkey-challenges:${addressKey}`;
const CHALLENGE_BYTES = 32;
/**
 * EdDSA, ES256 and RS256, what authenticators make. Named here, not left to the library's default,
 * which probes the runtime for ML-DSA: an experimental Web Crypto feature in Node 24 that prints a
 * warning into the server's output.
 */
const ALGORITHMS = [-8, -7, -257];

/** The relying party: the service as the address people reach it at (PUBLIC_URL, else the request's). */
export interface RelyingParty {
  /** The origin's host name, which passkeys are bound to. */
  id: string;
  /** The origin the browser must report (scheme, host and port). */
  origin: string;
  name: string;
}

export function relyingPartyOf(origin: string): RelyingParty {
  const url = new URL(origin);
  return { id: url.hostname, origin: url.origin, name: 'Keyplane' };
}

/** The challenge to store (by its hash) and when it stops being good. */
export interface IssuedChallenge {
  challengeHash: string;
  expiresAt: number;
}

/** Whether the challenge with this hash was still to be used, using it up (one answer per challenge). */
export type ConsumeChallenge = (challengeHash: string) => Promise<boolean>;

export interface NewPasskey {
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
}

/**
 * What the browser needs to create a passkey for the person: their id (the authenticator keeps one
 * passkey per person and service), the ones they have already (not made twice), a discoverable
 * credential (signing in needs no email) with user verification (the passkey is a whole sign-in).
 */
export async function passkeyRegistrationOptions(
  rp: RelyingParty,
  person: { userId: string; email: string; name: string },
  registered: readonly { credentialId: string; transports: readonly string[] }[],
  now: number,
): Promise<{ options: PasskeyRegistrationOptions; challenge: IssuedChallenge }> {
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: person.email,
    userDisplayName: person.name,
    userID: new TextEncoder().encode(person.userId),
    challenge: randomBytes(CHALLENGE_BYTES),
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: registered.map(({ credentialId, transports }) => ({
      id: credentialId,
      transports: [...transports],
    })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    supportedAlgorithmIDs: ALGORITHMS,
  });
  return { options, challenge: issued(options.challenge, now) };
}

/**
 * Checks the browser's answer to a registration challenge: the challenge is used up first (handed
 * out to this person, unused, unexpired), then the attestation is verified for this origin and
 * host. Anything wrong is a 400 saying what.
 */
export async function verifyPasskeyRegistration(
  rp: RelyingParty,
  response: RegistrationResponseJSON,
  consumeChallenge: ConsumeChallenge,
): Promise<NewPasskey> {
  const challenge = challengeOf(response);
  if (!(await consumeChallenge(hashKey(challenge)))) {
    throw notAdded('its challenge was not handed out to you, was used already or has expired; start again.');
  }
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
      supportedAlgorithmIDs: ALGORITHMS,
    });
  } catch (error) {
    throw notAdded(error instanceof Error ? error.message : 'the authenticator’s answer could not be verified.');
  }
  if (!verified.verified) throw notAdded('the authenticator’s answer could not be verified.');
  const { credential } = verified.registrationInfo;
  return {
    credentialId: credential.id,
    publicKey: credential.publicKey,
    counter: credential.counter,
    transports: credential.transports ?? response.response.transports ?? [],
  };
}

/**
 * What the browser needs to sign in with any passkey of this service on the device: no list of
 * credentials, so the answer says nothing about who has an account.
 */
export async function passkeySignInOptions(
  rp: RelyingParty,
  now: number,
): Promise<{ options: PasskeySignInOptions; challenge: IssuedChallenge }> {
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    challenge: randomBytes(CHALLENGE_BYTES),
    timeout: CEREMONY_TIMEOUT_MS,
    userVerification: 'required',
  });
  return { options, challenge: issued(options.challenge, now) };
}

export interface StoredPasskey {
  passkeyId: string;
  userId: string;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: readonly string[];
}

/**
 * Checks a sign-in answer: its challenge is used up first, whatever follows; then the passkey it
 * names must exist, belong to the person the authenticator names, and have signed this challenge
 * for this origin with user verification and a counter that moved on. Every failure is the same
 * 401, so an answer tells nothing about which accounts or passkeys exist.
 */
export async function verifyPasskeySignIn(
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  ports: { consumeChallenge: ConsumeChallenge; findPasskey(credentialId: string): Promise<StoredPasskey | undefined> },
): Promise<{ passkeyId: string; userId: string; newCounter: number }> {
  const challenge = challengeOf(response);
  if (!(await ports.consumeChallenge(hashKey(challenge)))) throw passkeySignInRefused();
  const passkey = await ports.findPasskey(response.id);
  if (!passkey) throw passkeySignInRefused();
  const { userHandle } = response.response;
  if (userHandle !== undefined && userHandle !== Buffer.from(passkey.userId).toString('base64url')) {
    throw passkeySignInRefused();
  }
  try {
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: passkey.counter,
        transports: [...passkey.transports],
      },
      requireUserVerification: true,
    });
    if (!verified.verified) throw passkeySignInRefused();
    return { passkeyId: passkey.passkeyId, userId: passkey.userId, newCounter: verified.authenticationInfo.newCounter };
  } catch {
    throw passkeySignInRefused();
  }
}

function issued(challenge: string, now: number): IssuedChallenge {
  return { challengeHash: hashKey(challenge), expiresAt: now + PASSKEY_CHALLENGE_LIFETIME_MS };
}

/** The challenge the browser says it answered, from the client data it signed. */
function challengeOf(response: RegistrationResponseJSON | AuthenticationResponseJSON): string {
  try {
    const clientData: unknown = JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8'));
    if (typeof clientData === 'object' && clientData !== null && 'challenge' in clientData) {
      const { challenge } = clientData;
      if (typeof challenge === 'string' && challenge !== '') return challenge;
    }
  } catch {
    // Reported below, as any other client data without a challenge.
  }
  const detail = 'response.response.clientDataJSON is not base64url-encoded client data with a challenge.';
  throw badRequest(detail, [{ location: 'body.response.response.clientDataJSON', message: detail }]);
}

const notAdded = (reason: string) => {
  const detail = `This passkey could not be added: ${reason}`;
  return badRequest(detail, [{ location: 'body.response', message: detail }]);
};

/** Every refused passkey sign-in, whatever the reason: the answer tells nothing about accounts or passkeys. */
export const passkeySignInRefused = () =>
  unauthorized(
    'This passkey did not sign you in. Try again, or sign in another way; ask an admin if it keeps failing.',
  );
