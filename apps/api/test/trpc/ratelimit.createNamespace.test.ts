import { describe, expect, it } from 'vitest';
import { expectInternalMissingPermissions } from '../assertions.ts';
import { storedNamespaces } from '../dbInspect.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import { callInternal, callProcedure } from '../internal.ts';
import type { InputOf } from '../procedures.ts';
import { limitOn } from '../ratelimit.ts';

const { api, workspace } = useApiWithWorkspace();

const create = (input: InputOf<'ratelimit.createNamespace'>, rootKey = workspace.rootKey) =>
  callProcedure(api, 'ratelimit.createNamespace', input, { rootKey });

describe('200', () => {
  it('creates a namespace that limiting then uses, by name or id', async () => {
    const reply = await create({ name: 'uploads' });
    expect(reply.status).toBe(200);
    const { namespaceId } = reply.data;
    expect(namespaceId).toMatch(/^rlns_/);
    expect(await storedNamespaces(api.em(), workspace.workspaceId)).toEqual([
      { id: namespaceId, name: 'uploads', deleted: false },
    ]);
    const limited = await limitOn(
      api,
      { namespace: namespaceId, identifier: 'u1', limit: 1, duration: 60_000 },
      workspace.rootKey,
    );
    expect(limited.status).toBe(200);
    expect(limited.body.data.success).toBe(true);
  });
});

describe('400', () => {
  it.each([[{}], [{ name: '' }], [{ name: 'x'.repeat(513) }], [{ name: 'a\u0000b' }]])('%j', async (input) => {
    expect((await callInternal(api, 'ratelimit.createNamespace', input, { rootKey: workspace.rootKey })).status).toBe(
      400,
    );
  });
});

describe('403', () => {
  it('without ratelimit.*.create_namespace', async () => {
    const { rootKey } = await workspace.rootKeyWith(['ratelimit.*.limit']);
    expectInternalMissingPermissions(await create({ name: 'forbidden' }, rootKey), 'ratelimit.*.create_namespace');
  });
});

describe('409', () => {
  it('when a live or deleted namespace has the name', async () => {
    await create({ name: 'taken' });
    const again = await create({ name: 'taken' });
    expect(again.status).toBe(409);
    expect(again.error?.message).toBe("A namespace named 'taken' already exists.");
    const removed = await create({ name: 'removed' });
    await callInternal(
      api,
      'ratelimit.deleteNamespace',
      { namespace: removed.data.namespaceId },
      { rootKey: workspace.rootKey },
    );
    expect((await create({ name: 'removed' })).status).toBe(409);
  });

  it('exactly one of concurrent creations of a name succeeds', async () => {
    const replies = await Promise.all(Array.from({ length: 8 }, () => create({ name: 'raced' })));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
    expect(replies.filter((reply) => reply.status === 409)).toHaveLength(7);
  });
});

describe('cross-workspace isolation', () => {
  it('the same name in another workspace is a different namespace', async () => {
    const other = await api.workspace();
    await create({ name: 'shared-name' });
    expect((await create({ name: 'shared-name' }, other.rootKey)).status).toBe(200);
  });
});
