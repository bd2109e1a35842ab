import { describe, expect, it } from 'vitest';
import { expectInvalidInput, expectMissingPermissions } from '../assertions.ts';
import { identityRatelimits, storedIdentities, storedKey } from '../dbInspect.ts';
import { expectNoSuchIdentity, itNeedsTheIdentityPermissionFirst, useIdentityOwner } from '../identities.ts';
import type { InputOf } from '../procedures.ts';
import { useSecondNode } from '../secondNode.ts';

const { api, owner, newKey, newIdentity, verify } = useIdentityOwner();

const deleteIdentity = (body: InputOf<'identities.deleteIdentity'>, rootKey = owner.workspace.rootKey) =>
  api.call('identities.deleteIdentity', body, rootKey);
const getIdentity = (identity: string) => api.call('identities.getIdentity', { identity }, owner.workspace.rootKey);

describe('200', () => {
  it('answers data {} and soft-deletes the identity, by id', async () => {
    const id = await newIdentity({ externalId: 'doomed', ratelimits: [{ name: 'kept', limit: 1, duration: 1000 }] });
    const reply = await deleteIdentity({ identity: id });
    expect(reply.status).toBe(200);
    // The {meta, data} envelope (docs/contract.md#envelopes), although the reference answers meta alone.
    expect(reply.body).toEqual({ meta: { requestId: expect.stringMatching(/^req_/) }, data: {} });
    expect(await storedIdentities(api.em(), owner.workspace.workspaceId, 'doomed')).toMatchObject([
      { id, deleted: true },
    ]);
    expect(await identityRatelimits(api.em(), id)).toHaveLength(1);
    expect((await getIdentity(id)).status).toBe(404);
  });

  it('by externalId', async () => {
    const id = await newIdentity({ externalId: 'doomed_by_name' });
    expect((await deleteIdentity({ identity: 'doomed_by_name' })).status).toBe(200);
    expect(await storedIdentities(api.em(), owner.workspace.workspaceId, 'doomed_by_name')).toMatchObject([
      { id, deleted: true },
    ]);
  });

  it('frees the externalId at once, for createIdentity and for keys', async () => {
    const old = await newIdentity({ externalId: 'reused' });
    await deleteIdentity({ identity: old });
    const { keyId } = await newKey({ externalId: 'reused' });
    const linked = (await storedKey(api.em(), keyId))?.identity_id;
    expect(linked).toMatch(/^id_/);
    expect(linked).not.toBe(old);
    expect(
      (await api.post('identities.createIdentity', { externalId: 'reused' }, owner.workspace.rootKey)).status,
    ).toBe(409);
  });

  it('deletes only that identity', async () => {
    const kept = await newIdentity({ externalId: 'bystander' });
    const doomed = await newIdentity({ externalId: 'target' });
    await deleteIdentity({ identity: doomed });
    expect((await getIdentity(kept)).status).toBe(200);
  });

  describe('its keys behave as keys without an identity, at once (the cache is warm)', () => {
    it('they keep identity_id but lose the identity and its shared limit in verification and getKey', async () => {
      const id = await newIdentity({
        externalId: 'limited_user',
        ratelimits: [{ name: 'team', limit: 2, duration: 60_000, autoApply: true }],
      });
      const first = await newKey({ externalId: 'limited_user' });
      const second = await newKey({ externalId: 'limited_user' });
      expect(await verify(first.key)).toMatchObject({ code: 'VALID', identity: { id, externalId: 'limited_user' } });
      expect((await verify(second.key)).code).toBe('VALID');
      expect((await verify(first.key)).code).toBe('RATE_LIMITED');
      expect((await verify(second.key)).code).toBe('RATE_LIMITED');

      expect((await deleteIdentity({ identity: id })).status).toBe(200);

      for (const { key } of [first, second]) {
        const answer = await verify(key);
        expect(answer.code).toBe('VALID');
        expect(answer.valid).toBe(true);
        expect(answer.identity).toBeUndefined();
        expect(answer.ratelimits ?? []).toEqual([]);
      }
      expect((await storedKey(api.em(), first.keyId))?.identity_id).toBe(id);
      const details = await api.call('keys.getKey', { keyId: first.keyId }, owner.workspace.rootKey);
      expect(details.status).toBe(200);
      expect(details.body.data.identity).toBeUndefined();
    });

    it("a new identity with the same externalId does not adopt the deleted one's keys", async () => {
      const old = await newIdentity({ externalId: 'orphaning_user' });
      const { key } = await newKey({ externalId: 'orphaning_user' });
      expect((await verify(key)).identity?.id).toBe(old);
      await deleteIdentity({ identity: old });
      await newIdentity({
        externalId: 'orphaning_user',
        ratelimits: [{ name: 'strict', limit: 1, duration: 60_000, autoApply: true }],
      });
      for (let i = 0; i < 3; i++) {
        const answer = await verify(key);
        expect(answer.code).toBe('VALID');
        expect(answer.identity).toBeUndefined();
      }
    });

    describe('on another node', () => {
      const nodeB = useSecondNode(api);

      it('as soon as the delete returns, not when its cache expires (1 s)', async () => {
        const id = await newIdentity({ externalId: 'remote_user' });
        const { key } = await newKey({ externalId: 'remote_user' });
        const verifyOnB = async () => (await nodeB.call('keys.verifyKey', { key }, owner.workspace.rootKey)).body.data;
        expect((await verifyOnB()).identity?.id).toBe(id);
        expect((await verifyOnB()).identity?.id).toBe(id);
        await deleteIdentity({ identity: id });
        expect((await verifyOnB()).identity).toBeUndefined();
      });
    });
  });
});

describe('400', () => {
  it.each([
    ['missing', {}, 'body.identity'],
    ['empty', { identity: '' }, 'body.identity'],
    ['too long', { identity: 'x'.repeat(256) }, 'body.identity'],
    ['of the wrong type', { identity: ['x'] }, 'body.identity'],
    ['with an unknown field', { identity: 'x', permanent: true }, 'body.permanent'],
  ])('identity %s', async (_, body, location) => {
    expectInvalidInput(await api.post('identities.deleteIdentity', body, owner.workspace.rootKey), location);
  });
});

describe('403', () => {
  it('without identity.*.delete_identity, naming it, and deletes nothing', async () => {
    const id = await newIdentity({ externalId: 'protected_user' });
    const { rootKey } = await owner.workspace.rootKeyWith([
      'identity.*.read_identity',
      'identity.*.update_identity',
      `identity.${id}.read_identity`,
    ]);
    const reply = await deleteIdentity({ identity: id }, rootKey);
    expectMissingPermissions(reply, 'identity.*.delete_identity');
    expect((await getIdentity(id)).status).toBe(200);
  });

  itNeedsTheIdentityPermissionFirst({
    action: 'delete_identity',
    workspace: () => owner.workspace,
    create: () => newIdentity({ externalId: 'deletable_user' }),
    send: (identity, rootKey) => deleteIdentity({ identity }, rootKey),
  });
});

describe('404', () => {
  it('for an identity that does not exist, by id or externalId', async () => {
    await expectNoSuchIdentity((identity) => deleteIdentity({ identity }));
  });

  it('for an identity deleted already, by id and by externalId', async () => {
    const id = await newIdentity({ externalId: 'twice_deleted' });
    expect((await deleteIdentity({ identity: id })).status).toBe(200);
    expect((await deleteIdentity({ identity: id })).status).toBe(404);
    expect((await deleteIdentity({ identity: 'twice_deleted' })).status).toBe(404);
  });

  it('deleting by externalId after a reuse deletes the live identity only', async () => {
    const old = await newIdentity({ externalId: 'reborn' });
    await deleteIdentity({ identity: old });
    const current = await newIdentity({ externalId: 'reborn' });
    expect((await deleteIdentity({ identity: 'reborn' })).status).toBe(200);
    expect(await storedIdentities(api.em(), owner.workspace.workspaceId, 'reborn')).toMatchObject([
      { id: old, deleted: true },
      { id: current, deleted: true },
    ]);
    expect((await deleteIdentity({ identity: 'reborn' })).status).toBe(404);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot delete another workspace's identity (404), whose keys keep it", async () => {
    const id = await newIdentity({ externalId: 'their_user' });
    const { key } = await newKey({ externalId: 'their_user' });
    const intruder = await api.workspace();
    for (const identity of [id, 'their_user']) {
      expect((await deleteIdentity({ identity }, intruder.rootKey)).status).toBe(404);
    }
    expect((await getIdentity(id)).status).toBe(200);
    expect((await verify(key)).identity?.id).toBe(id);
  });

  it('deletes its own identity of the same externalId only', async () => {
    const other = await api.workspace();
    const mine = await newIdentity({ externalId: 'twin_user' });
    await newIdentity({ externalId: 'twin_user' }, other.rootKey);
    expect((await deleteIdentity({ identity: 'twin_user' }, other.rootKey)).status).toBe(200);
    expect((await getIdentity(mine)).status).toBe(200);
  });
});
