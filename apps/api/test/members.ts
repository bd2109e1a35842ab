import { newSecretToken, type TeamRole } from '@keyplane/core';
import { createInvitation, findMembership, typed } from '@keyplane/db';
import { expect, it } from 'vitest';
import { expectMissingPermissions, expectProblem } from './assertions.ts';
import { useApiWithWorkspace } from './fixtures.ts';
import type { Api, Reply, TestWorkspace } from './harness.ts';
import { callProcedure } from './internal.ts';
import { type SignedInPerson, signedInPerson } from './people.ts';

// What the members.* test files share.

export const MANAGE_MEMBERS = 'workspace.*.manage_members';

/** The person's role in the workspace as stored; undefined: no member. */
export async function storedRole(api: Pick<Api, 'em'>, workspaceId: string, userId: string) {
  return (await findMembership(api.em(), workspaceId, userId))?.role;
}

/** The token a link carries after its `#`. */
export function tokenOf(url: string): string {
  const token = url.split('#')[1];
  if (token === undefined) throw new Error(`no token in ${url}`);
  return token;
}

/** `<origin><path>#<43 base64url characters>`, the shape of every link members.* makes. */
export function expectLink(url: string, origin: string, path: string): void {
  expect(url).toMatch(new RegExp(`^${origin.replaceAll('.', '\\.')}${path}#[A-Za-z0-9_-]{43}$`));
}

/** The audit entries of the workspace for this event, as stored, newest first. */
export async function auditEntries(api: Pick<Api, 'em'>, workspaceId: string, event: string) {
  return typed(api.em())
    .selectFrom('audit_events')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('event', '=', event)
    .orderBy('id', 'desc')
    .execute();
}

/** No part of the entry (resources, details, anything) holds this secret. */
export function expectNotRecorded(entries: readonly unknown[], secret: string): void {
  expect(entries.length).toBeGreaterThan(0);
  expect(JSON.stringify(entries)).not.toContain(secret);
}

/** The start of a members.* test file: its server, a workspace on it, and that workspace's `team` (teamOf). */
export function useTeam() {
  const { api, workspace } = useApiWithWorkspace();
  return { api, workspace, team: teamOf(api, workspace) };
}

/**
 * The workspace's people and the rules every members.* procedure keeps about them: `person(role)`
 * signs a new person of the workspace in; the rest are the refusals the procedures share.
 */
export function teamOf(api: Api, workspace: TestWorkspace) {
  const person = (role: TeamRole) => signedInPerson(api, workspace.workspaceId, role);
  return {
    person,
    /** The 403 of a root key without workspace.*.manage_members (it holds api.*.read_api), naming it; `send` calls with that key. */
    async expectNeedsManageMembers(send: (rootKey: string) => Promise<Reply<unknown>>): Promise<void> {
      const { rootKey } = await workspace.rootKeyWith(['api.*.read_api']);
      expectMissingPermissions(await send(rootKey), MANAGE_MEMBERS);
    },
    /** A member or a viewer of the workspace may not do it (`attempt`, with their session) to a viewer: 403. */
    itRefusesMembersAndViewers(
      attempt: (session: string, target: SignedInPerson) => Promise<{ status: number }>,
    ): void {
      it('refuses members and viewers', async () => {
        const target = await person('viewer');
        for (const role of ['member', 'viewer'] as const) {
          expect((await attempt((await person(role)).session, target)).status).toBe(403);
        }
      });
    },
    /**
     * The only owner of a workspace (one of the test's own) stays its owner: `send` (to them, with
     * that workspace's root key, which holds everything) answers 412 saying why, and their role is as it was.
     */
    itKeepsTheLastOwner(send: (userId: string, rootKey: string) => Promise<Reply<unknown>>): void {
      it('keeps the last owner an owner, even for a root key holding everything', async () => {
        const alone = await api.workspace();
        const owner = await signedInPerson(api, alone.workspaceId, 'owner');
        const reply = await send(owner.userId, alone.rootKey);
        expectProblem(reply, 412, 'service/application/precondition_failed');
        expect(reply.body.error.detail).toContain('at least one owner');
        expect(await storedRole(api, alone.workspaceId, owner.userId)).toBe('owner');
      });
    },
  };
}

/**
 * A root key without workspace.*.read_members (it holds `others`) gets the 403 naming it, and so
 * does a member signed in to the dashboard; a viewer reads. In a workspace of the test's own.
 */
export function itNeedsReadMembers(
  api: Api,
  procedure: 'members.listMembers' | 'members.listInvitations',
  others: string[],
): void {
  it('refuses a root key without workspace.*.read_members, and a member; a viewer reads', async () => {
    const workspace = await api.workspace();
    const { rootKey } = await workspace.rootKeyWith(others);
    expectMissingPermissions(await api.call(procedure, {}, rootKey), 'workspace.*.read_members');
    for (const [role, status] of [
      ['member', 403],
      ['viewer', 200],
    ] as const) {
      const { session } = await signedInPerson(api, workspace.workspaceId, role);
      expect((await callProcedure(api, procedure, {}, { session })).status).toBe(status);
    }
  });
}

/** An invitation that expired a moment ago (the procedures make only live ones), as its id. */
export function storeExpiredInvitation(api: Pick<Api, 'em'>, workspaceId: string, email: string) {
  return createInvitation(api.em(), {
    workspaceId,
    email,
    role: 'viewer',
    tokenHash: newSecretToken().tokenHash,
    invitedByUserId: null,
    expiresAt: Date.now() - 1,
  });
}

export type { TeamRole };
