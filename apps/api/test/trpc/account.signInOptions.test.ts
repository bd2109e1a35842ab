import { describe, expect, it } from 'vitest';
import { asBrowser } from '../accounts.ts';
import { useApi } from '../harness.ts';
import { callProcedure } from '../internal.ts';

// account.signInOptions: what the sign-in page offers, asked before anyone is signed in.
const api = useApi();

describe('200', () => {
  it('offers passwords and passkeys, and says whether SSO and root keys are on', async () => {
    const reply = await callProcedure(api, 'account.signInOptions', undefined, asBrowser);
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({ password: true, passkeys: true, sso: false, rootKey: true });
  });

  it('follows the server settings', async () => {
    const { team } = api.services;
    const saved = { ...team };
    Object.assign(team, { sso: true, rootKeySignIn: false });
    try {
      const reply = await callProcedure(api, 'account.signInOptions', undefined, asBrowser);
      expect(reply.data).toMatchObject({ sso: true, rootKey: false });
    } finally {
      Object.assign(team, saved);
    }
  });
});
