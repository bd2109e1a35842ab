import { expect, it } from 'vitest';
import { expectProblem } from './assertions.ts';
import type { ErrorEnvelope, TestWorkspace } from './harness.ts';

// What the identities.* procedures' tests share: the answers for an identity that does not exist.

type IdentityReply = { status: number; body: { error: ErrorEnvelope } };

/** The 404 of an identity the workspace does not have, named by id or externalId. */
export function expectIdentityNotFound(reply: IdentityReply): void {
  expectProblem(reply, 404, 'service/data/identity_not_found');
  expect(reply.body.error.detail).toBe('This identity does not exist.');
}

/** The 404 of `send` for an identity that does not exist, named by id and by externalId. */
export async function expectNoSuchIdentity(send: (identity: string) => Promise<IdentityReply>): Promise<void> {
  for (const identity of ['id_doesnotexist', 'nobody']) expectIdentityNotFound(await send(identity));
}

/** 403 for an identity that does not exist, to a root key that may only read identities: permissions come before the lookup. */
export function itRefusesBeforeLookingTheIdentityUp(
  workspace: () => TestWorkspace,
  send: (identity: string, rootKey: string) => Promise<{ status: number }>,
): void {
  it('before looking the identity up: also for one that does not exist', async () => {
    const { rootKey } = await workspace().rootKeyWith(['identity.*.read_identity']);
    expect((await send('nobody_at_all', rootKey)).status).toBe(403);
  });
}
