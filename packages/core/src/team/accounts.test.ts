import { describe, expect, it } from 'vitest';
import { hashKey } from '../keys.ts';
import { accountSignInThrottleKey, newSetupLink, setupLinkUrl, signInWorkspace } from './accounts.ts';

describe('accountSignInThrottleKey', () => {
  it('counts an email whatever its case and surrounding spaces, without the email in it', () => {
    const key = accountSignInThrottleKey('Ada@Example.test');
    expect(accountSignInThrottleKey(' ada@example.test ')).toBe(key);
    expect(key).not.toContain('ada');
    expect(key).toMatch(/^account:[A-Za-z0-9+/]{43}=$/);
    expect(accountSignInThrottleKey('bob@example.test')).not.toBe(key);
  });
});

describe('signInWorkspace', () => {
  it('lands in the workspace signed in to last', () => {
    expect(
      signInWorkspace([
        { workspaceId: 'ws_a', createdAt: 1, lastSignInAt: 10 },
        { workspaceId: 'ws_b', createdAt: 2, lastSignInAt: 20 },
        { workspaceId: 'ws_c', createdAt: 0, lastSignInAt: null },
      ]),
    ).toBe('ws_b');
  });

  it('else in the oldest membership', () => {
    expect(
      signInWorkspace([
        { workspaceId: 'ws_b', createdAt: 5, lastSignInAt: null },
        { workspaceId: 'ws_a', createdAt: 3, lastSignInAt: null },
      ]),
    ).toBe('ws_a');
  });

  it('prefers any sign-in to none, and is undefined without a membership', () => {
    expect(
      signInWorkspace([
        { workspaceId: 'ws_old', createdAt: 0, lastSignInAt: null },
        { workspaceId: 'ws_new', createdAt: 9, lastSignInAt: 1 },
      ]),
    ).toBe('ws_new');
    expect(signInWorkspace([])).toBeUndefined();
  });
});

describe('newSetupLink and setupLinkUrl', () => {
  it('makes a token valid 24 hours, stored as its hash, shown in the fragment of the setup page', () => {
    const link = newSetupLink(1_000);
    expect(link.expiresAt).toBe(1_000 + 24 * 60 * 60 * 1000);
    expect(link.tokenHash).toBe(hashKey(link.token));
    expect(setupLinkUrl('https://kp.example.test', link.token)).toBe(
      `https://kp.example.test/dashboard/setup#${link.token}`,
    );
  });
});
