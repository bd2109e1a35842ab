import { describe, expect, it } from 'vitest';
import { expectInternalMissingPermissions } from '../assertions.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure, signIn } from '../internal.ts';

const { api, workspace } = useApiWithWorkspace();

const update = (input: unknown, rootKey = workspace.rootKey) =>
  callInternal(api, 'rootKeys.updateRootKey', input, { rootKey });

const HOUR = 3_600_000;

const storedExpiry = async (rootKeyId: string) =>
  (await callProcedure(api, 'rootKeys.listRootKeys', undefined, { rootKey: workspace.rootKey })).data.data.find(
    (rootKey) => rootKey.rootKeyId === rootKeyId,
  )?.expiresAt;

describe('200', () => {
  it('expires a key now: the next call is refused', async () => {
    const target = await workspace.rootKeyWith(['api.*.create_api']);
    expect((await api.post('apis.createApi', { name: 'cached' }, target.rootKey)).status).toBe(200);
    expect((await update({ rootKeyId: target.rootKeyId, expires: Date.now() })).status).toBe(200);
    const refused = await api.post('apis.createApi', { name: 'after' }, target.rootKey);
    expect(refused.status).toBe(401);
    expect(refused.body.error.detail).toBe('The provided root key has expired.');
  });

  it('sets a later expiry, and null removes it', async () => {
    const target = await workspace.rootKeyWith(['api.*.create_api'], { expiresAt: new Date(Date.now() - 1000) });
    expect((await api.post('apis.createApi', { name: 'expired' }, target.rootKey)).status).toBe(401);
    expect((await update({ rootKeyId: target.rootKeyId, expires: null })).status).toBe(200);
    expect((await api.post('apis.createApi', { name: 'revived' }, target.rootKey)).status).toBe(200);
    const later = Date.now() + 86_400_000;
    expect((await update({ rootKeyId: target.rootKeyId, expires: later })).status).toBe(200);
    const listed = await callProcedure(api, 'rootKeys.listRootKeys', undefined, { rootKey: workspace.rootKey });
    expect(listed.data.data.find((rootKey) => rootKey.rootKeyId === target.rootKeyId)?.expiresAt).toBe(later);
  });

  it('a key may shorten its own expiry', async () => {
    const expiresAt = new Date(Date.now() + HOUR);
    const own = await workspace.rootKeyWith(['workspace.*.manage_root_keys'], { expiresAt });
    const sooner = Date.now() + HOUR / 2;
    expect((await update({ rootKeyId: own.rootKeyId, expires: sooner }, own.rootKey)).status).toBe(200);
    expect(await storedExpiry(own.rootKeyId)).toBe(sooner);
  });

  it('a key holding every permission of an expired key revives it within its own lifetime', async () => {
    const grants = ['workspace.*.manage_root_keys', 'api.*.read_api', 'api.*.create_api'];
    const caller = await workspace.rootKeyWith(grants, { expiresAt: new Date(Date.now() + HOUR) });
    const target = await workspace.rootKeyWith(['api.*.read_api', 'api.*.create_api'], {
      expiresAt: new Date(Date.now() - 1000),
    });
    const expires = Date.now() + HOUR / 2;
    expect((await update({ rootKeyId: target.rootKeyId, expires }, caller.rootKey)).status).toBe(200);
    expect((await api.post('apis.createApi', { name: 'revived-briefly' }, target.rootKey)).status).toBe(200);
  });
});

describe('400', () => {
  it.each([
    [{ rootKeyId: 'rk_x' }],
    [{ rootKeyId: 'rk_x', expires: 'soon' }],
    [{ expires: null }],
    [{ rootKeyId: 'rk_\u0000', expires: null }],
  ])('%j', async (input) => {
    expect((await update(input)).status).toBe(400);
  });

  it('an expiry in the past', async () => {
    const target = await workspace.rootKeyWith(['api.*.create_api']);
    const reply = await update({ rootKeyId: target.rootKeyId, expires: Date.now() - 3_600_000 });
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toBe('`expires` must not be in the past.');
  });
});

describe('403', () => {
  it('without workspace.*.manage_root_keys', async () => {
    const target = await workspace.rootKeyWith(['api.*.create_api']);
    const { rootKey } = await workspace.rootKeyWith(['api.*.create_api']);
    expect((await update({ rootKeyId: target.rootKeyId, expires: Date.now() }, rootKey)).status).toBe(403);
    expect((await api.post('apis.createApi', { name: 'still' }, target.rootKey)).status).toBe(200);
  });

  it('a narrow key cannot revive an expired key holding a permission it lacks', async () => {
    const target = await workspace.rootKeyWith(['api.*.read_api'], { expiresAt: new Date(Date.now() - 1000) });
    const narrow = await workspace.rootKeyWith(['workspace.*.manage_root_keys', 'api.*.create_api']);
    const reply = await update({ rootKeyId: target.rootKeyId, expires: null }, narrow.rootKey);
    expectInternalMissingPermissions(reply, 'api.*.read_api');
    expect(await storedExpiry(target.rootKeyId)).toBeLessThan(Date.now());
    expect((await api.post('apis.getApi', { apiId: 'api_x' }, target.rootKey)).status).toBe(401);
  });

  it('a key created with a one-hour expiry cannot remove its own expiry, nor set it later', async () => {
    const expiresAt = new Date(Date.now() + HOUR);
    const own = await workspace.rootKeyWith(['workspace.*.manage_root_keys', 'api.*.create_api'], { expiresAt });
    for (const expires of [null, expiresAt.getTime() + HOUR]) {
      const reply = await update({ rootKeyId: own.rootKeyId, expires }, own.rootKey);
      expect(reply.status).toBe(403);
      expect(reply.error?.data.type).toBe('service/authorization/forbidden');
      expect(reply.error?.message).toBe(
        `This root key expires at ${expiresAt.toISOString()} and cannot make a root key live longer than it will ` +
          `itself: \`expires\` must be ${expiresAt.getTime()} (${expiresAt.toISOString()}) or earlier.`,
      );
    }
    expect(await storedExpiry(own.rootKeyId)).toBe(expiresAt.getTime());
  });

  it('a short-lived key cannot revive an expired key beyond its own lifetime, even holding its permissions', async () => {
    const caller = await workspace.rootKeyWith(['workspace.*.manage_root_keys', 'api.*.create_api'], {
      expiresAt: new Date(Date.now() + HOUR),
    });
    const expired = new Date(Date.now() - 1000);
    const target = await workspace.rootKeyWith(['api.*.create_api'], { expiresAt: expired });
    const reply = await update({ rootKeyId: target.rootKeyId, expires: Date.now() + 2 * HOUR }, caller.rootKey);
    expect(reply.status).toBe(403);
    expect(await storedExpiry(target.rootKeyId)).toBe(expired.getTime());
  });

  /** Takes the root key's expiry away, as the dashboard session `session`. */
  const reviveAs = (session: string, rootKeyId: string) =>
    callInternal(api, 'rootKeys.updateRootKey', { rootKeyId, expires: null }, { session });

  it("a dashboard session obeys its root key's expiry too", async () => {
    const expiresAt = new Date(Date.now() + HOUR);
    const own = await workspace.rootKeyWith(['workspace.*.manage_root_keys'], { expiresAt });
    const session = await signIn(api, own.rootKey);
    const reply = await reviveAs(session, own.rootKeyId);
    expect(reply.status).toBe(403);
    expect(await storedExpiry(own.rootKeyId)).toBe(expiresAt.getTime());
  });

  it('a dashboard session cannot revive a key holding a permission its root key lacks', async () => {
    const target = await workspace.rootKeyWith(['api.*.read_api'], { expiresAt: new Date(Date.now() - 1000) });
    const narrow = await workspace.rootKeyWith(['workspace.*.manage_root_keys', 'api.*.create_api']);
    const session = await signIn(api, narrow.rootKey);
    expectInternalMissingPermissions(await reviveAs(session, target.rootKeyId), 'api.*.read_api');
  });
});

describe('404', () => {
  it('for an unknown root key id', async () => {
    expect((await update({ rootKeyId: 'rk_00000000000000000000000000000000', expires: null })).status).toBe(404);
  });
});

describe('cross-workspace isolation', () => {
  it("cannot expire another workspace's root key", async () => {
    const other = await api.workspace();
    const theirs = await other.rootKeyWith(['api.*.create_api']);
    expect((await update({ rootKeyId: theirs.rootKeyId, expires: Date.now() })).status).toBe(404);
    expect((await api.post('apis.createApi', { name: 'theirs' }, theirs.rootKey)).status).toBe(200);
  });
});
