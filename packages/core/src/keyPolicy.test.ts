import { describe, expect, it } from 'vitest';
import { PRECONDITION_DETAILS } from './errors.ts';
import { keyCreationPrecondition } from './keyPolicy.ts';

const ready = { recoverable: true, vaultReady: true, keyAuthEnabled: true, encryptionEnabled: true };

describe('keyCreationPrecondition', () => {
  it('passes when everything is set up', () => {
    expect(keyCreationPrecondition(ready)).toBeUndefined();
  });

  it.each([
    [{ vaultReady: false, keyAuthEnabled: false, encryptionEnabled: false }, PRECONDITION_DETAILS.vaultNotSetUp],
    [{ keyAuthEnabled: false, encryptionEnabled: false }, PRECONDITION_DETAILS.keyAuthDisabled],
    [{ encryptionEnabled: false }, PRECONDITION_DETAILS.encryptionDisabled],
  ])('reports the first unmet one in contract order: %j', (unmet, detail) => {
    const error = keyCreationPrecondition({ ...ready, ...unmet });
    expect(error?.status).toBe(412);
    expect(error?.message).toBe(detail);
  });

  it('asks nothing of vault and encryption for a key that is not recoverable', () => {
    expect(
      keyCreationPrecondition({
        recoverable: false,
        vaultReady: false,
        keyAuthEnabled: true,
        encryptionEnabled: false,
      }),
    ).toBeUndefined();
  });
});
