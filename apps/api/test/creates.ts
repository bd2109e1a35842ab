import { expect, it } from 'vitest';
import { expectInvalidInput, expectMissingPermissions } from './assertions.ts';
import type { Api, Reply, TestWorkspace } from './harness.ts';
import type { ProcedurePath } from './procedures.ts';

// What the tests of procedures that create something (identities.createIdentity,
// webhooks.createEndpoint) share: a refused call stores nothing. `count()` counts the rows such a
// call would add to.

/**
 * A file's 400 check: posts `body` as it is with the workspace's root key, expects it rejected at
 * `location` and `count()` as before; answers the reply, for what its detail says.
 */
export function invalidInputStoringNothing(
  api: Api,
  workspace: TestWorkspace,
  procedure: ProcedurePath,
  count: () => Promise<number>,
) {
  return async (body: unknown, location: string) => {
    const before = await count();
    const reply = await api.post(procedure, body, workspace.rootKey);
    expectInvalidInput(reply, location);
    expect(await count()).toBe(before);
    return reply;
  };
}

/**
 * The 403s of a create procedure: with each of `grantSets`, `create` (with a root key holding
 * just those) answers 403 naming `permission`, `count()` is as before, and `unchanged` (if given)
 * finds nothing else either.
 */
export function itNeedsCreatePermission(
  workspace: TestWorkspace,
  spec: {
    permission: string;
    grantSets: string[][];
    create: (rootKey: string) => Promise<Reply<unknown>>;
    count: () => Promise<number>;
    unchanged?: () => Promise<void>;
  },
): void {
  it.each(spec.grantSets.map((grants) => [grants]))(
    `with %j, naming ${spec.permission}, and creates nothing`,
    async (grants) => {
      const { rootKey } = await workspace.rootKeyWith(grants);
      const before = await spec.count();
      expectMissingPermissions(await spec.create(rootKey), spec.permission);
      expect(await spec.count()).toBe(before);
      await spec.unchanged?.();
    },
  );
}
