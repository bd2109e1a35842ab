import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@keyplane/core';
import { z } from 'zod';
import { textSchema } from '../../schemas.ts';

// The browser's answers to a WebAuthn ceremony as @simplewebauthn/browser hands them over (JSON,
// binary fields base64url). Fields the browser may add later are dropped, not refused.

const base64url = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_-]*$/, 'must be base64url (A–Z, a–z, 0–9, - and _, no padding)');

/** A credential id: WebAuthn allows up to 1023 bytes, 1364 characters in base64url. */
const credentialIdSchema = base64url(1400).min(1);

const credentialFields = {
  id: credentialIdSchema,
  rawId: credentialIdSchema,
  type: z.literal('public-key'),
  /** Extensions' results: the service asks for none it reads. */
  clientExtensionResults: z
    .custom<object>(
      (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
      'must be an object',
    )
    .default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};

export const registrationResponseSchema = z.object({
  ...credentialFields,
  response: z.object({
    clientDataJSON: base64url(16_384).min(1),
    attestationObject: base64url(65_536).min(1),
    authenticatorData: base64url(65_536).optional(),
    /** `usb`, `nfc`, `ble`, `internal`, `hybrid`, …: hints kept for the browser, whatever new ones come. */
    transports: z
      .array(z.string().regex(/^[a-z-]{1,32}$/, 'must be a transport name such as usb or internal'))
      .max(16)
      .optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url(16_384).optional(),
  }),
}) satisfies z.ZodType<RegistrationResponseJSON>;

export const authenticationResponseSchema = z.object({
  ...credentialFields,
  response: z.object({
    clientDataJSON: base64url(16_384).min(1),
    authenticatorData: base64url(65_536).min(1),
    signature: base64url(16_384).min(1),
    userHandle: base64url(1024).optional(),
  }),
}) satisfies z.ZodType<AuthenticationResponseJSON>;

/** What a person calls a passkey ("Work laptop"), to tell theirs apart. */
export const passkeyNameSchema = textSchema.trim().min(1).max(100);
