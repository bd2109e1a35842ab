import { beforeAll, describe, expect, it } from 'vitest';
import { expectInvalidInput, expectProblem } from '../assertions.ts';
import { identityRatelimits } from '../dbInspect.ts';
import { createTestIdentity, useApiWithWorkspace } from '../fixtures.ts';
import { expectNoSuchIdentity } from '../identities.ts';
import type { InputOf, OutputOf } from '../procedures.ts';

const { api, workspace } = useApiWithWorkspace();

const newIdentity = (input: InputOf<'identities.createIdentity'>, rootKey = workspace.rootKey) =>
  createTestIdentity(api, rootKey, input);
const getIdentity = (body: InputOf<'identities.getIdentity'>, rootKey = workspace.rootKey) =>
  api.call('identities.getIdentity', body, rootKey);

describe('200', () => {
  let identityId: string;
  let expected: OutputOf<'identities.getIdentity'>;
  beforeAll(async () => {
    identityId = await newIdentity({
      externalId: 'full_user',
      meta: { plan: 'pro', nested: { list: [1, 'two', null] } },
      ratelimits: [
        { name: 'tokens', limit: 5000, duration: 60_000 },
        { name: 'requests', limit: 10, duration: 1000, autoApply: true },
      ],
    });
    const ids = Object.fromEntries(
      (await identityRatelimits(api.em(), identityId)).map((limit) => [limit.name, limit.id]),
    );
    expected = {
      id: identityId,
      externalId: 'full_user',
      meta: { plan: 'pro', nested: { list: [1, 'two', null] } },
      ratelimits: [
        { id: ids.requests ?? '', name: 'requests', limit: 10, duration: 1000, autoApply: true },
        { id: ids.tokens ?? '', name: 'tokens', limit: 5000, duration: 60_000, autoApply: false },
      ],
    };
  });

  it('by id: the identity with its meta and its rate limits (by name)', async () => {
    const reply = await getIdentity({ identity: identityId });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual(expected);
    expect(reply.body.data.ratelimits?.every((limit) => limit.id.startsWith('rl_'))).toBe(true);
  });

  it('by externalId: the same identity', async () => {
    const reply = await getIdentity({ identity: 'full_user' });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual(expected);
  });

  it('leaves out meta and ratelimits when it has none', async () => {
    const bare = await newIdentity({ externalId: 'bare_user' });
    const reply = await getIdentity({ identity: 'bare_user' });
    expect(reply.body.data).toEqual({ id: bare, externalId: 'bare_user' });
  });

  it("prefers the identity with that id over one whose externalId is that id's text", async () => {
    const target = await newIdentity({ externalId: 'target_user' });
    const impostor = await newIdentity({ externalId: target });
    expect((await getIdentity({ identity: target })).body.data).toMatchObject({
      id: target,
      externalId: 'target_user',
    });
    // Its own id still finds the impostor.
    expect((await getIdentity({ identity: impostor })).body.data).toMatchObject({ id: impostor, externalId: target });
  });

  it('sees the live identity of a reused externalId, not the deleted one', async () => {
    const old = await newIdentity({ externalId: 'reborn_user', meta: { generation: 1 } });
    await api.post('identities.deleteIdentity', { identity: old }, workspace.rootKey);
    const current = await newIdentity({ externalId: 'reborn_user', meta: { generation: 2 } });
    expect((await getIdentity({ identity: 'reborn_user' })).body.data).toEqual({
      id: current,
      externalId: 'reborn_user',
      meta: { generation: 2 },
    });
  });

  it.each([['identity.*.read_identity'], ['identity.ID.read_identity']])('with %s', async (grant) => {
    const id = await newIdentity({ externalId: `granted_${grant.split('.')[1] === '*' ? 'all' : 'one'}` });
    const { rootKey } = await workspace.rootKeyWith([grant.replace('ID', id)]);
    expect((await getIdentity({ identity: id }, rootKey)).status).toBe(200);
  });

  it('with identity.<id>.read_identity, also when asked by externalId', async () => {
    const id = await newIdentity({ externalId: 'asked_by_external_id' });
    const { rootKey } = await workspace.rootKeyWith([`identity.${id}.read_identity`]);
    const reply = await getIdentity({ identity: 'asked_by_external_id' }, rootKey);
    expect(reply.status).toBe(200);
    expect(reply.body.data.id).toBe(id);
  });
});

describe('400', () => {
  it.each([
    ['missing', {}, 'body.identity'],
    ['empty', { identity: '' }, 'body.identity'],
    ['too long', { identity: 'x'.repeat(256) }, 'body.identity'],
    ['of the wrong type', { identity: 7 }, 'body.identity'],
    ['with U+0000', { identity: 'a\u0000' }, 'body.identity'],
    ['with an unknown field', { identity: 'x', externalId: 'x' }, 'body.externalId'],
  ])('identity %s', async (_, body, location) => {
    expectInvalidInput(await api.post('identities.getIdentity', body, workspace.rootKey), location);
  });
});

describe('403', () => {
  it('without any read grant, naming the wildcard', async () => {
    await newIdentity({ externalId: 'secret_user' });
    const { rootKey } = await workspace.rootKeyWith(['identity.*.update_identity', 'api.*.read_key']);
    const reply = await getIdentity({ identity: 'secret_user' }, rootKey);
    expectProblem(reply, 403, 'service/authorization/forbidden');
    expect(reply.body.error.detail).toBe("Missing permission: 'identity.*.read_identity'.");
  });

  it("with another identity's grant, without revealing the internal id of one asked by externalId", async () => {
    const readable = await newIdentity({ externalId: 'readable_user' });
    const hidden = await newIdentity({ externalId: 'hidden_user' });
    const { rootKey } = await workspace.rootKeyWith([`identity.${readable}.read_identity`]);
    const reply = await getIdentity({ identity: 'hidden_user' }, rootKey);
    expect(reply.status).toBe(403);
    expect(JSON.stringify(reply.body)).not.toContain(hidden);
  });

  it('for an externalId no identity has as for one it may not read, to a root key of some identities', async () => {
    const readable = await newIdentity({ externalId: 'own_user' });
    await newIdentity({ externalId: 'someone_else' });
    const { rootKey } = await workspace.rootKeyWith([`identity.${readable}.read_identity`]);
    const existing = await getIdentity({ identity: 'someone_else' }, rootKey);
    const missing = await getIdentity({ identity: 'no_one_at_all' }, rootKey);
    expect(existing.body.error).toEqual(missing.body.error);
    expect(missing.body.error.detail).toBe("Missing permission: 'identity.*.read_identity'.");
  });
});

describe('404', () => {
  it('for an identity that does not exist, by id or externalId', async () => {
    await expectNoSuchIdentity((identity) => getIdentity({ identity }));
  });

  it('for an id no identity has, to a root key granted that very id', async () => {
    const { rootKey } = await workspace.rootKeyWith(['identity.id_granted_gone.read_identity']);
    expect((await getIdentity({ identity: 'id_granted_gone' }, rootKey)).status).toBe(404);
  });

  it('for a deleted identity, by id and by externalId', async () => {
    const id = await newIdentity({ externalId: 'deleted_user' });
    expect((await api.post('identities.deleteIdentity', { identity: id }, workspace.rootKey)).status).toBe(200);
    expect((await getIdentity({ identity: id })).status).toBe(404);
    expect((await getIdentity({ identity: 'deleted_user' })).status).toBe(404);
  });

  it('matches the externalId exactly: no other letter case, no prefix', async () => {
    await newIdentity({ externalId: 'Exact_User' });
    expect((await getIdentity({ identity: 'exact_user' })).status).toBe(404);
    expect((await getIdentity({ identity: 'Exact_' })).status).toBe(404);
  });
});

describe('cross-workspace isolation', () => {
  it("another workspace's identity does not exist, by id or by externalId", async () => {
    const id = await newIdentity({ externalId: 'private_user', meta: { secret: true } });
    const intruder = await api.workspace();
    for (const identity of [id, 'private_user']) {
      const reply = await getIdentity({ identity }, intruder.rootKey);
      expect(reply.status).toBe(404);
      expect(JSON.stringify(reply.body)).not.toContain('secret');
    }
  });

  it('the same externalId answers each workspace with its own identity', async () => {
    const other = await api.workspace();
    const mine = await newIdentity({ externalId: 'twin_user' });
    const theirs = await newIdentity({ externalId: 'twin_user' }, other.rootKey);
    expect((await getIdentity({ identity: 'twin_user' })).body.data.id).toBe(mine);
    expect((await getIdentity({ identity: 'twin_user' }, other.rootKey)).body.data.id).toBe(theirs);
  });
});
