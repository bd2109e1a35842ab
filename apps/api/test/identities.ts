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

/**
 * `identity.*.<action>` is checked before the identity is looked up: a 403 also for one that does
 * not exist, to a root key that may only read identities; and it is all `send` takes (a 200 for
 * the identity `create` answers).
 */
export function itNeedsTheIdentityPermissionFirst(spec: {
  action: string;
  workspace: () => TestWorkspace;
  create: () => Promise<string>;
  send: (identity: string, rootKey: string) => Promise<{ status: number }>;
}): void {
  it('before looking the identity up: also for one that does not exist', async () => {
    const { rootKey } = await spec.workspace().rootKeyWith(['identity.*.read_identity']);
    expect((await spec.send('nobody_at_all', rootKey)).status).toBe(403);
  });

  it(`not with identity.*.${spec.action} alone`, async () => {
    const id = await spec.create();
    const { rootKey } = await spec.workspace().rootKeyWith([`identity.*.${spec.action}`]);
    expect((await spec.send(id, rootKey)).status).toBe(200);
  });
}
