export { base58Encode } from './base58.ts';
export * from './errors.ts';
export { type IdKind, newId } from './ids.ts';
export { type KeyCreationSetting, keyCreationPrecondition } from './keyPolicy.ts';
export { DEFAULT_KEY_BYTES, type GeneratedKey, generateKey, hashesEqual, hashKey } from './keys.ts';
export * from './permissions.ts';
export * from './vault.ts';
export * from './verification/permissionQuery.ts';
export * from './verification/refill.ts';
