import { createChangeLog } from '@keyplane/caches';
import { bootstrapWorkspace, newSecretToken } from '@keyplane/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  acceptInvitation,
  createInvitation,
  findPendingInvitation,
  listInvitations,
  revokeInvitation,
} from './invitations.ts';
import { createUser } from './members.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';
import { deleteWorkspace, workspaceStore } from './workspaces.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
});
afterAll(async () => {
  await database.drop();
});

const em = () => database.orm.em.fork();
const HOUR = 3_600_000;

async function newWorkspace(): Promise<string> {
  return (await em().transactional((tx) => bootstrapWorkspace(workspaceStore(tx), { name: 'team' }))).workspaceId;
}

async function invite(workspaceId: string, options: { expiresAt?: number; email?: string } = {}) {
  const { token, tokenHash } = newSecretToken();
  const invitationId = await createInvitation(em(), {
    workspaceId,
    email: options.email ?? 'invitee@example.com',
    role: 'viewer',
    tokenHash,
    invitedByUserId: null,
    expiresAt: options.expiresAt ?? Date.now() + 72 * HOUR,
  });
  return { invitationId, token, tokenHash };
}

describe('createInvitation and listInvitations', () => {
  it('lists the workspace’s pending invitations, newest first, with who invited', async () => {
    const workspaceId = await newWorkspace();
    const inviter = await createUser(em(), { email: 'inviter@example.com', name: 'Inviter', passwordHash: null });
    const { tokenHash } = newSecretToken();
    const first = await createInvitation(em(), {
      workspaceId,
      email: 'first@example.com',
      role: 'admin',
      tokenHash,
      invitedByUserId: inviter ?? null,
      expiresAt: Date.now() + HOUR,
    });
    expect(first).toMatch(/^inv_[0-9a-f]{32}$/);
    const second = (await invite(workspaceId)).invitationId;
    const listed = await listInvitations(em(), workspaceId);
    expect(listed.map((invitation) => invitation.invitationId)).toEqual([second, first]);
    expect(listed[1]).toMatchObject({
      email: 'first@example.com',
      role: 'admin',
      invitedByUserId: inviter,
      workspaceId,
    });
  });

  it('leaves out accepted, revoked and expired invitations', async () => {
    const workspaceId = await newWorkspace();
    const accepted = await invite(workspaceId);
    await acceptInvitation(em(), accepted.tokenHash);
    const revoked = await invite(workspaceId);
    await revokeInvitation(em(), workspaceId, revoked.invitationId);
    await invite(workspaceId, { expiresAt: Date.now() - 1000 });
    const pending = await invite(workspaceId);
    expect((await listInvitations(em(), workspaceId)).map((invitation) => invitation.invitationId)).toEqual([
      pending.invitationId,
    ]);
  });
});

describe('acceptInvitation', () => {
  it('answers the invitation once, then never again', async () => {
    const workspaceId = await newWorkspace();
    const { invitationId, tokenHash } = await invite(workspaceId, { email: 'Once@Example.com' });
    expect(await findPendingInvitation(em(), tokenHash)).toMatchObject({ invitationId });
    expect(await acceptInvitation(em(), tokenHash)).toMatchObject({
      invitationId,
      workspaceId,
      email: 'Once@Example.com',
      role: 'viewer',
    });
    expect(await acceptInvitation(em(), tokenHash)).toBeUndefined();
    expect(await findPendingInvitation(em(), tokenHash)).toBeUndefined();
  });

  it('lets exactly one of several accepts at once succeed', async () => {
    const workspaceId = await newWorkspace();
    const { tokenHash } = await invite(workspaceId);
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () =>
        em().transactional(async (tx) => {
          const accepted = await acceptInvitation(tx, tokenHash);
          // Holds the row a moment, so the others have to wait for this transaction.
          await tx.getConnection().execute('select pg_sleep(0.1)');
          return accepted;
        }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome !== undefined)).toHaveLength(1);
  });

  it('refuses an expired, a revoked or an unknown invitation, and one of a deleted workspace', async () => {
    const workspaceId = await newWorkspace();
    const expired = await invite(workspaceId, { expiresAt: Date.now() - 1 });
    expect(await findPendingInvitation(em(), expired.tokenHash)).toBeUndefined();
    expect(await acceptInvitation(em(), expired.tokenHash)).toBeUndefined();
    const revoked = await invite(workspaceId);
    expect(await revokeInvitation(em(), workspaceId, revoked.invitationId)).toBe(true);
    expect(await acceptInvitation(em(), revoked.tokenHash)).toBeUndefined();
    expect(await acceptInvitation(em(), newSecretToken().tokenHash)).toBeUndefined();

    const doomed = await newWorkspace();
    const orphan = await invite(doomed);
    await deleteWorkspace(em(), createChangeLog(), doomed);
    expect(await findPendingInvitation(em(), orphan.tokenHash)).toBeUndefined();
    expect(await acceptInvitation(em(), orphan.tokenHash)).toBeUndefined();
  });
});

describe('revokeInvitation', () => {
  it('revokes a pending invitation once; not an accepted one', async () => {
    const workspaceId = await newWorkspace();
    const pending = await invite(workspaceId);
    expect(await revokeInvitation(em(), workspaceId, pending.invitationId)).toBe(true);
    expect(await revokeInvitation(em(), workspaceId, pending.invitationId)).toBe(false);
    const accepted = await invite(workspaceId);
    await acceptInvitation(em(), accepted.tokenHash);
    expect(await revokeInvitation(em(), workspaceId, accepted.invitationId)).toBe(false);
  });

  it('cannot reach another workspace’s invitation (cross-workspace isolation)', async () => {
    const [mine, theirs] = [await newWorkspace(), await newWorkspace()];
    const { invitationId, tokenHash } = await invite(theirs);
    expect(await revokeInvitation(em(), mine, invitationId)).toBe(false);
    expect(await listInvitations(em(), mine)).toEqual([]);
    expect(await findPendingInvitation(em(), tokenHash)).toMatchObject({ workspaceId: theirs });
  });
});
