import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

// A software authenticator: makes the answers a browser hands over after a WebAuthn ceremony (as
// @simplewebauthn/browser serialises them), for procedure tests without a browser. It holds one
// ES256 passkey, reports user presence and verification, and counts its signatures
// (docs/decisions/0020-software-passkey-authenticator-in-tests.md).

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

/** The small part of CBOR (RFC 8949) attestation objects and COSE keys use. */
function cbor(value: Cbor): Buffer {
  const head = (major: number, length: number): Buffer => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 256) return Buffer.from([(major << 5) | 24, length]);
    const bytes = Buffer.alloc(3);
    bytes[0] = (major << 5) | 25;
    bytes.writeUInt16BE(length, 1);
    return bytes;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([key, item]) => [cbor(key), cbor(item)])]);
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest();
const b64url = (data: Uint8Array) => Buffer.from(data).toString('base64url');

const USER_PRESENT = 0x01;
const USER_VERIFIED = 0x04;
const ATTESTED_CREDENTIAL = 0x40;

interface Options {
  challenge: string;
  rp?: { id?: string };
  rpId?: string;
  user?: { id: string };
}

export interface SoftwareAuthenticator {
  credentialId: string;
  /** The answer `startRegistration` would give to these registration options, at `origin`. */
  register(options: Options, origin: string): RegistrationAnswer;
  /** The answer `startAuthentication` would give to these sign-in options, at `origin`. */
  signIn(options: Options, origin: string): SignInAnswer;
}

export interface RegistrationAnswer {
  id: string;
  rawId: string;
  type: 'public-key';
  clientExtensionResults: Record<string, never>;
  response: { clientDataJSON: string; attestationObject: string; transports: 'internal'[] };
}

export interface SignInAnswer {
  id: string;
  rawId: string;
  type: 'public-key';
  clientExtensionResults: Record<string, never>;
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string };
}

export function softwareAuthenticator(): SoftwareAuthenticator {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const credential = randomBytes(32);
  const credentialId = b64url(credential);
  let counter = 0;
  let userHandle: string | undefined;

  const clientData = (type: string, challenge: string, origin: string) =>
    Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  const authenticatorData = (rpId: string, flags: number, attested?: Buffer) => {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  };
  /** A ceremony's answer as the browser serialises it: this passkey's ids around the authenticator's response. */
  const answer = <R extends RegistrationAnswer['response'] | SignInAnswer['response']>(response: R) => ({
    id: credentialId,
    rawId: credentialId,
    type: 'public-key' as const,
    clientExtensionResults: {},
    response,
  });

  return {
    credentialId,
    register(options, origin) {
      userHandle = options.user?.id;
      const rpId = options.rp?.id ?? new URL(origin).hostname;
      const length = Buffer.alloc(2);
      length.writeUInt16BE(credential.length);
      const attested = Buffer.concat([Buffer.alloc(16), length, credential, coseKey(publicKey)]);
      const authData = authenticatorData(rpId, USER_PRESENT | USER_VERIFIED | ATTESTED_CREDENTIAL, attested);
      const attestation = cbor(
        new Map<Cbor, Cbor>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', authData],
        ]),
      );
      return answer({
        clientDataJSON: b64url(clientData('webauthn.create', options.challenge, origin)),
        attestationObject: b64url(attestation),
        transports: ['internal'],
      });
    },
    signIn(options, origin) {
      counter++;
      const rpId = options.rpId ?? new URL(origin).hostname;
      const authData = authenticatorData(rpId, USER_PRESENT | USER_VERIFIED);
      const data = clientData('webauthn.get', options.challenge, origin);
      const signature = sign('sha256', Buffer.concat([authData, sha256(data)]), privateKey as KeyObject);
      return answer({
        clientDataJSON: b64url(data),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(userHandle === undefined ? {} : { userHandle }),
      });
    },
  };
}

/** The public key as COSE (EC2, ES256, P-256). */
function coseKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  if (!jwk.x || !jwk.y) throw new Error('not an EC key');
  return cbor(
    new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x, 'base64url')],
      [-3, Buffer.from(jwk.y, 'base64url')],
    ]),
  );
}
