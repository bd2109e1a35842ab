import { beforeAll } from 'vitest';
import { createRole, grantRolePermission, storedNamespaces } from './dbInspect.ts';
import { type Api, createTestApi, createTestKey, type TestWorkspace, useApi } from './harness.ts';
import type { InputOf } from './procedures.ts';
import { limitOn } from './ratelimit.ts';

// What many test files set up before they test anything: one way to make each.

export type NewKeyInput = Omit<InputOf<'keys.createKey'>, 'apiId'>;

/**
 * Per test file: a workspace (with a vault when asked), made before the file's tests run. The
 * object is there at once, for helpers to close over; its fields once that beforeAll ran.
 */
export function useWorkspace(api: Api, options: { vault?: boolean } = {}): TestWorkspace {
  let made: TestWorkspace | undefined;
  const ready = () => {
    if (!made) throw new Error('useWorkspace() is used before its beforeAll ran');
    return made;
  };
  beforeAll(async () => {
    made = await api.workspace(options);
  });
  return {
    get workspaceId() {
      return ready().workspaceId;
    },
    get rootKey() {
      return ready().rootKey;
    },
    rootKeyWith: (permissions, keyOptions) => ready().rootKeyWith(permissions, keyOptions),
  };
}

/** The start of most test files: the file's server (`useApi`) and a workspace on it (`useWorkspace`). */
export function useApiWithWorkspace(options: { vault?: boolean } = {}) {
  const api = useApi();
  return { api, workspace: useWorkspace(api, options) };
}

/**
 * Per test file: a workspace (with a vault when asked) and an API in it with these settings, made
 * before the file's tests run (after `useApi`'s server is up), and `newKey` for keys of that API.
 */
export function useWorkspaceWithApi(
  api: Api,
  options: { vault?: boolean; settings?: Omit<InputOf<'apis.updateApi'>, 'apiId'> } = {},
) {
  let made: { workspace: TestWorkspace; apiId: string } | undefined;
  const ready = () => {
    if (!made) throw new Error('useWorkspaceWithApi() is used before its beforeAll ran');
    return made;
  };
  beforeAll(async () => {
    const workspace = await api.workspace({ vault: options.vault });
    made = { workspace, apiId: await createTestApi(api, workspace.rootKey, options.settings) };
  });
  return {
    get workspace(): TestWorkspace {
      return ready().workspace;
    },
    get apiId(): string {
      return ready().apiId;
    },
    newKey: (input: NewKeyInput = {}) =>
      createTestKey(api, ready().workspace.rootKey, { apiId: ready().apiId, ...input }),
  };
}

/** A key in a workspace of its own: what cross-workspace tests reach for. */
export async function keyOfAnotherWorkspace(api: Api, input: NewKeyInput = {}) {
  const workspace = await api.workspace();
  const apiId = await createTestApi(api, workspace.rootKey);
  return { workspace, apiId, ...(await createTestKey(api, workspace.rootKey, { apiId, ...input })) };
}

/** Roles straight in the database, each with the permissions (slugs) it grants; answers their ids by name. */
export async function createRolesWith(
  api: Api,
  workspaceId: string,
  roles: Record<string, string[]>,
): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const [name, slugs] of Object.entries(roles)) {
    const roleId = await createRole(api.em(), workspaceId, name);
    for (const slug of slugs) await grantRolePermission(api.em(), workspaceId, roleId, slug);
    ids[name] = roleId;
  }
  return ids;
}

/** Creates an identity through the public procedure and answers its id, failing the test on any error. */
export async function createTestIdentity(api: Api, rootKey: string, input: InputOf<'identities.createIdentity'>) {
  const reply = await api.call('identities.createIdentity', input, rootKey);
  if (reply.status !== 200) throw new Error(`createIdentity failed: ${JSON.stringify(reply.body)}`);
  return reply.body.data.identityId;
}

/** Creates the namespace by a cost-0 check (which consumes nothing) and answers its id. */
export async function createNamespace(api: Api, workspaceId: string, rootKey: string, name: string): Promise<string> {
  const reply = await limitOn(
    api,
    { namespace: name, identifier: 'probe', limit: 1, duration: 1000, cost: 0 },
    rootKey,
  );
  if (reply.status !== 200) throw new Error(`limit failed: ${JSON.stringify(reply.body)}`);
  const found = (await storedNamespaces(api.em(), workspaceId)).find((namespace) => namespace.name === name);
  if (!found) throw new Error(`namespace ${name} was not created`);
  return found.id;
}

/** Sets a namespace's override through the public procedure and answers its id, failing the test on any error. */
export async function setTestOverride(api: Api, rootKey: string, body: InputOf<'ratelimit.setOverride'>) {
  const reply = await api.call('ratelimit.setOverride', body, rootKey);
  if (reply.status !== 200) throw new Error(`setOverride failed: ${JSON.stringify(reply.body)}`);
  return reply.body.data.overrideId;
}
