import { type DomainError, PRECONDITION_DETAILS, preconditionFailed } from './errors.ts';

export interface KeyCreationSetting {
  recoverable: boolean;
  vaultReady: boolean;
  keyAuthEnabled: boolean;
  encryptionEnabled: boolean;
}

/**
 * The first unmet precondition for creating a key on an API, in the contract's order:
 * the vault, then key authentication, then encryption.
 */
export function keyCreationPrecondition(setting: KeyCreationSetting): DomainError | undefined {
  if (setting.recoverable && !setting.vaultReady) return preconditionFailed(PRECONDITION_DETAILS.vaultNotSetUp);
  if (!setting.keyAuthEnabled) return preconditionFailed(PRECONDITION_DETAILS.keyAuthDisabled);
  if (setting.recoverable && !setting.encryptionEnabled) {
    return preconditionFailed(PRECONDITION_DETAILS.encryptionDisabled);
  }
  return undefined;
}
