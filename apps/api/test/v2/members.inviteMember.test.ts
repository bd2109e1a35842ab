import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashKey, INVITATION_LIFETIME_MS } from '@keyplane/core';
import { findPendingInvitation, typed } from '@keyplane/db';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, itRejectsEach } from '../assertions.ts';
import { useWorkspace } from '../fixtures.ts';
import { TEST_MASTER_KEY, useApi } from '../harness.ts';
import { callProcedure } from '../internal.ts';
import { auditEntries, expectLink, expectNotRecorded, MANAGE_MEMBERS, teamOf, tokenOf } from '../members.ts';
import { signedInPerson } from '../people.ts';
import type { InputOf } from '../procedures.ts';

/** What the test's mail server received: the envelope's recipients and the message as sent. */
const received: { to: string[]; raw: string }[] = [];
let smtpPort = 0;
// Refuses mail to refused@…, as a mail server refusing a mailbox does.
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onRcptTo(address, _session, callback) {
    callback(address.address.startsWith('refused@') ? new Error('550 mailbox unavailable') : undefined);
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      received.push({ to: session.envelope.rcptTo.map((to) => to.address), raw: Buffer.concat(chunks).toString() });
      callback();
    });
  },
});
beforeAll(async () => {
  await new Promise<void>((listening) => smtp.listen(0, '127.0.0.1', listening));
  smtpPort = (smtp.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((closed) => smtp.close(closed));
});

const api = useApi({
  vaultMasterKey: TEST_MASTER_KEY,
  team: () => ({ smtp: { url: `smtp://127.0.0.1:${smtpPort}`, from: 'Keyplane <keyplane@example.test>' } }),
});
const workspace = useWorkspace(api);
const team = teamOf(api, workspace);

const invite = (input: InputOf<'members.inviteMember'>, rootKey = workspace.rootKey) =>
  api.call('members.inviteMember', input, rootKey);
const inviteAs = (session: string, input: InputOf<'members.inviteMember'>) =>
  callProcedure(api, 'members.inviteMember', input, { session });

/** The message's text, quoted-printable undone (long lines are wrapped, `=` written `=3D`). */
const textOf = (raw: string) =>
  raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

describe('200', () => {
  it('answers a single-use link on the origin the request was made to, valid 72 hours, stored only as its hash', async () => {
    const before = Date.now();
    const reply = await invite({ email: 'new.person@example.test', role: 'member' });
    expect(reply.status).toBe(200);
    const { invitationId, url, expiresAt, emailed } = reply.body.data;
    expect(invitationId).toMatch(/^inv_/);
    expectLink(url, api.url, '/dashboard/invite');
    expect(expiresAt).toBeGreaterThanOrEqual(before + INVITATION_LIFETIME_MS);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + INVITATION_LIFETIME_MS);
    expect(emailed).toBe(true);
    const token = tokenOf(url);
    expect(await findPendingInvitation(api.em(), hashKey(token))).toMatchObject({
      invitationId,
      workspaceId: workspace.workspaceId,
      email: 'new.person@example.test',
      role: 'member',
      invitedByUserId: null,
    });
    const stored = await typed(api.em()).selectFrom('invitations').selectAll().where('id', '=', invitationId).execute();
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it('emails the link to the invitee alone, with no other secret', async () => {
    const reply = await invite({ email: 'mailed@example.test', role: 'viewer' });
    const { url } = reply.body.data;
    const mail = received.find((message) => message.to.includes('mailed@example.test'));
    expect(mail?.to).toEqual(['mailed@example.test']);
    const text = textOf(mail?.raw ?? '');
    expect(text).toContain(url);
    expect(text).toMatch(/^To: mailed@example\.test/m);
    expect(text).toMatch(/^From: Keyplane <keyplane@example\.test>/m);
    expect(text).toContain('as viewer');
    // Neither the root key that invited nor any other link's token.
    expect(text).not.toContain(workspace.rootKey);
    expect(text.match(/[A-Za-z0-9_-]{43}/g)).toEqual([tokenOf(url)]);
  });

  it('keeps the invitation and says emailed: false when the mail server refuses it', async () => {
    const reply = await invite({ email: 'refused@example.test', role: 'viewer' });
    expect(reply.status).toBe(200);
    expect(reply.body.data.emailed).toBe(false);
    expect(await findPendingInvitation(api.em(), hashKey(tokenOf(reply.body.data.url)))).toBeDefined();
  });

  it('takes the scheme from X-Forwarded-Proto, as behind a proxy that ends TLS', async () => {
    const reply = await api.request<{ url: string }>('/v2/members.inviteMember', {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${workspace.rootKey}`,
        'Content-Type': 'application/json',
        'X-Forwarded-Proto': 'https',
      },
      body: JSON.stringify({ email: 'proxied@example.test', role: 'viewer' }),
    });
    expect(reply.status).toBe(200);
    expectLink(reply.body.data.url, api.url.replace('http:', 'https:'), '/dashboard/invite');
  });

  it('replaces a pending invitation to the same address, whatever its case', async () => {
    const first = await invite({ email: 'twice@example.test', role: 'viewer' });
    const second = await invite({ email: 'Twice@Example.test', role: 'admin' });
    expect(await findPendingInvitation(api.em(), hashKey(tokenOf(first.body.data.url)))).toBeUndefined();
    expect(await findPendingInvitation(api.em(), hashKey(tokenOf(second.body.data.url)))).toMatchObject({
      role: 'admin',
    });
  });

  it('lets an admin invite an admin, naming them as the inviter', async () => {
    const admin = await team.person('admin');
    const reply = await inviteAs(admin.session, { email: 'by-admin@example.test', role: 'admin' });
    expect(reply.status).toBe(200);
    expect(await findPendingInvitation(api.em(), hashKey(tokenOf(reply.data.url)))).toMatchObject({
      invitedByUserId: admin.userId,
    });
  });

  it('records the invitation in the audit log by id and address, never its link or token', async () => {
    const reply = await invite({ email: 'audited@example.test', role: 'member' });
    const entries = await auditEntries(api, workspace.workspaceId, 'members.inviteMember');
    const entry = entries.find((candidate) => candidate.resources.invitationId === reply.body.data.invitationId);
    expect(entry?.details?.names).toEqual({ invitationId: 'audited@example.test' });
    expectNotRecorded(entries, tokenOf(reply.body.data.url));
    expect(JSON.stringify(entries)).not.toContain('/dashboard/invite');
  });

  describe('with PUBLIC_URL and no SMTP_URL', () => {
    const publicApi = useApi({
      vaultMasterKey: TEST_MASTER_KEY,
      team: () => ({ publicUrl: 'https://keys.example.com' }),
    });
    const publicWorkspace = useWorkspace(publicApi);

    it('makes the link on PUBLIC_URL, whatever the Host, and says it was not emailed', async () => {
      const reply = await publicApi.call(
        'members.inviteMember',
        { email: 'copied@example.test', role: 'viewer' },
        publicWorkspace.rootKey,
      );
      expect(reply.status).toBe(200);
      expectLink(reply.body.data.url, 'https://keys.example.com', '/dashboard/invite');
      expect(reply.body.data.emailed).toBe(false);
    });
  });
});

describe('400', () => {
  itRejectsEach(api, 'members.inviteMember', () => workspace.rootKey, [
    [{ role: 'viewer' }, 'body.email'],
    [{ email: 'not an address', role: 'viewer' }, 'body.email'],
    [{ email: `${'a'.repeat(320)}@example.test`, role: 'viewer' }, 'body.email'],
    [{ email: 'x@example.test' }, 'body.role'],
    [{ email: 'x@example.test', role: 'superuser' }, 'body.role'],
    [{ email: 'x@example.test', role: 'viewer', extra: true }, 'body.extra'],
  ]);

  it('asks for PUBLIC_URL when the Host header cannot make a link, and makes no invitation', async () => {
    // fetch sets Host itself: node:http sends the one given.
    const { port } = new URL(api.url);
    const body = JSON.stringify({ email: 'hostless@example.test', role: 'viewer' });
    const reply = await new Promise<{ status: number; body: string }>((answered, failed) => {
      const sent = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v2/members.inviteMember',
          headers: {
            Host: 'evil.test/phish?',
            Authorization: `Bearer ${workspace.rootKey}`,
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            answered({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
          );
        },
      );
      sent.on('error', failed);
      sent.end(body);
    });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body).error.detail).toContain('PUBLIC_URL');
    const listed = await api.call('members.listInvitations', {}, workspace.rootKey);
    expect(listed.body.data.map((invitation) => invitation.email)).not.toContain('hostless@example.test');
  });
});

describe('403', () => {
  it('refuses a root key without workspace.*.manage_members', async () => {
    await team.expectNeedsManageMembers((rootKey) => invite({ email: 'x@example.test', role: 'viewer' }, rootKey));
  });

  it('refuses an admin inviting an owner', async () => {
    const admin = await team.person('admin');
    const reply = await inviteAs(admin.session, { email: 'would-be-owner@example.test', role: 'owner' });
    expect(reply.status).toBe(403);
    expect(reply.error?.message).toContain("'owner'");
  });

  it('refuses a root key a role above what its permissions amount to', async () => {
    const { rootKey } = await workspace.rootKeyWith([MANAGE_MEMBERS, 'api.*.read_api']);
    const reply = await invite({ email: 'x@example.test', role: 'viewer' }, rootKey);
    expectProblem(reply, 403, 'service/authorization/forbidden');
    expect(reply.body.error.detail).toContain("'viewer'");
  });

  it('refuses members and viewers', async () => {
    for (const role of ['member', 'viewer'] as const) {
      const person = await team.person(role);
      expect((await inviteAs(person.session, { email: 'x@example.test', role: 'viewer' })).status).toBe(403);
    }
  });
});

describe('409', () => {
  it('refuses to invite someone who is already a member, whatever the case of the address', async () => {
    await signedInPerson(api, workspace.workspaceId, 'viewer', { email: 'already@example.test' });
    const reply = await invite({ email: 'ALREADY@example.test', role: 'admin' });
    expectProblem(reply, 409, 'service/data/member_already_exists');
    expect(reply.body.error.detail).toContain('members.updateMember');
  });
});

describe('cross-workspace isolation', () => {
  it('invites a member of another workspace into this one as anyone else', async () => {
    const other = await api.workspace();
    await signedInPerson(api, other.workspaceId, 'owner', { email: 'elsewhere@example.test' });
    const reply = await invite({ email: 'elsewhere@example.test', role: 'viewer' });
    expect(reply.status).toBe(200);
    const listed = await api.call('members.listInvitations', {}, other.rootKey);
    expect(listed.body.data.map((invitation) => invitation.email)).not.toContain('elsewhere@example.test');
  });
});
