import { expect, it } from 'vitest';
import { expectProblem } from './assertions.ts';
import { createTestIdentity, useWorkspaceWithApi } from './fixtures.ts';
import { type ErrorEnvelope, type TestWorkspace, useApi } from './harness.ts';
import type { InputOf } from './procedures.ts';

// What the identities.* procedures' tests share: the start of a file whose identities have keys,
// and the answers for an identity that does not exist.

/**
 * The start of a file about identities and the keys that use them: its server, a workspace with an
 * API (`owner`, useWorkspaceWithApi, and its `newKey`), identities made with that workspace's root
 * key unless given another, and `verify`, keys.verifyKey failing the test on anything but 200.
 */
export function useIdentityOwner() {
  const api = useApi();
  const owner = useWorkspaceWithApi(api);
  return {
    api,
    owner,
    newKey: owner.newKey,
    newIdentity: (input: InputOf<'identities.createIdentity'>, rootKey = owner.workspace.rootKey) =>
      createTestIdentity(api, rootKey, input),
    async verify(key: string) {
      const reply = await api.call('keys.verifyKey', { key }, owner.workspace.rootKey);
      expect(reply.status).toBe(200);
      return reply.body.data;
    },
  };
}

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
