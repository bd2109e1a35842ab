import { PASSKEY_SIGN_IN_CHALLENGES_ALLOWED, SIGN_IN_FAILURES_ALLOWED } from '@keyplane/core';
import { rows, sql } from '@keyplane/db';
import { describe, expect, it, onTestFinished } from 'vitest';
import { serveOn } from '../appVariants.ts';
import { useApiWithWorkspace } from '../fixtures.ts';
import type { TestServer } from '../httpServer.ts';
import { callInternal, callProcedure } from '../internal.ts';
import { type SoftwareAuthenticator, softwareAuthenticator } from '../passkeys.ts';
import { type SignedInPerson, signedInPerson } from '../people.ts';
import { expectNoAccount } from '../trpcAssertions.ts';

// account.passkeyRegistrationOptions, addPasskey, listPasskeys, renamePasskey, removePasskey,
// passkeySignInOptions and signInWithPasskey: a person's passkeys, made by a software
// authenticator (passkeys.ts) that answers as a browser would.
const { api, workspace } = useApiWithWorkspace();

const asBrowser = { headers: { 'x-keyplane-dashboard': '1' } };

/** Registers a new passkey for the person through the procedures, as the dashboard does. */
async function addPasskeyFor(
  person: SignedInPerson,
  name = 'Laptop',
): Promise<{ authenticator: SoftwareAuthenticator; passkeyId: string }> {
  const authenticator = softwareAuthenticator();
  const options = await callProcedure(api, 'account.passkeyRegistrationOptions', undefined, person);
  expect(options.status).toBe(200);
  const response = authenticator.register(options.data, api.url);
  const added = await callProcedure(api, 'account.addPasskey', { name, response }, person);
  expect(added.status).toBe(200);
  return { authenticator, passkeyId: added.data.passkeyId };
}

/** A sign-in answer to a fresh challenge, from the authenticator, at `origin`. */
async function signInAnswer(authenticator: SoftwareAuthenticator, server: Pick<TestServer, 'fetch' | 'url'> = api) {
  const options = await callProcedure(server, 'account.passkeySignInOptions', undefined, asBrowser);
  expect(options.status).toBe(200);
  return authenticator.signIn(options.data, server.url);
}

const signInWith = (
  response: unknown,
  server: Pick<TestServer, 'fetch'> = api,
  headers: Record<string, string> = asBrowser.headers,
) =>
  callInternal<{ userId: string; workspaceId: string }>(server, 'account.signInWithPasskey', { response }, { headers });

const sessionCookieOf = (setCookie: string[]) => setCookie.find((cookie) => cookie.startsWith('keyplane_session=p.'));

describe('200', () => {
  it('registers a passkey with options for this host, lists it, renames it and removes it', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member', { name: 'Pia' });
    const options = await callProcedure(api, 'account.passkeyRegistrationOptions', undefined, person);
    expect(options.data).toMatchObject({
      rp: { id: '127.0.0.1', name: 'Keyplane' },
      user: { name: person.email, displayName: 'Pia', id: Buffer.from(person.userId).toString('base64url') },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      excludeCredentials: [],
    });
    const authenticator = softwareAuthenticator();
    const added = await callProcedure(
      api,
      'account.addPasskey',
      { name: '  Work laptop ', response: authenticator.register(options.data, api.url) },
      person,
    );
    expect(added.status).toBe(200);
    const { passkeyId } = added.data;
    expect(passkeyId).toMatch(/^pkey_/);

    const listed = await callProcedure(api, 'account.listPasskeys', undefined, person);
    expect(listed.data.passkeys).toEqual([
      { passkeyId, name: 'Work laptop', createdAt: expect.any(Number), lastUsedAt: null },
    ]);
    // The next registration tells the browser not to make a second passkey on the same authenticator.
    const again = await callProcedure(api, 'account.passkeyRegistrationOptions', undefined, person);
    expect(again.data.excludeCredentials).toEqual([
      { id: authenticator.credentialId, type: 'public-key', transports: ['internal'] },
    ]);

    expect((await callProcedure(api, 'account.renamePasskey', { passkeyId, name: 'Phone' }, person)).status).toBe(200);
    expect((await callProcedure(api, 'account.listPasskeys', undefined, person)).data.passkeys[0]?.name).toBe('Phone');
    expect((await callProcedure(api, 'account.removePasskey', { passkeyId }, person)).status).toBe(200);
    expect((await callProcedure(api, 'account.listPasskeys', undefined, person)).data.passkeys).toEqual([]);
  });

  it('signs in with a passkey: a person session cookie, the last workspace, the use recorded and audited', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'viewer');
    const { authenticator, passkeyId } = await addPasskeyFor(person);
    // A second workspace they signed in to more recently is where the passkey takes them.
    const other = await api.workspace();
    await rows(
      api.em(),
      sql`insert into memberships (workspace_id, user_id, role, created_at, last_sign_in_at)
          values (${other.workspaceId}, ${person.userId}, 'admin', now(), now() + interval '1 minute')`,
    );

    const signOptions = await callProcedure(api, 'account.passkeySignInOptions', undefined, asBrowser);
    expect(signOptions.data).toMatchObject({ rpId: '127.0.0.1', userVerification: 'required' });
    expect(signOptions.data.allowCredentials ?? []).toEqual([]);
    const reply = await signInWith(authenticator.signIn(signOptions.data, api.url));
    expect(reply.status).toBe(200);
    expect(reply.data).toEqual({ userId: person.userId, workspaceId: other.workspaceId });
    const cookie = sessionCookieOf(reply.setCookie);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);

    const session = cookie?.slice('keyplane_session='.length).split(';')[0] ?? '';
    const who = await callProcedure(api, 'dashboard.session', undefined, { session });
    expect(who.data).toMatchObject({
      workspaceId: other.workspaceId,
      person: { userId: person.userId, role: 'admin' },
    });
    const [used] = (await callProcedure(api, 'account.listPasskeys', undefined, { session })).data.passkeys;
    expect(used?.lastUsedAt).toEqual(expect.any(Number));
    const [audited] = await rows<{ actor_user_id: string; resources: Record<string, string> }>(
      api.em(),
      sql`select actor_user_id, resources from audit_events where event = 'account.signInWithPasskey'
          and actor_user_id = ${person.userId}`,
    );
    expect(audited).toEqual({ actor_user_id: person.userId, resources: { passkeyId, userId: person.userId } });
  });

  it('signs in again and again, each time with a new challenge and a higher counter', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const { authenticator } = await addPasskeyFor(person);
    for (let attempt = 0; attempt < 3; attempt++) {
      const reply = await signInWith(await signInAnswer(authenticator));
      expect(reply.status).toBe(200);
      expect(reply.data.workspaceId).toBe(workspace.workspaceId);
    }
  });

  it('answers the same sign-in options whoever asks: no credentials, a new challenge each time', async () => {
    const first = await callProcedure(api, 'account.passkeySignInOptions', undefined, asBrowser);
    const second = await callProcedure(api, 'account.passkeySignInOptions', undefined, asBrowser);
    expect(Object.keys(first.data).sort()).toEqual(Object.keys(second.data).sort());
    expect(first.data.challenge).not.toBe(second.data.challenge);
    expect(first.data).not.toHaveProperty('allowCredentials');
  });
});

describe('400', () => {
  it('refuses a registration answer to no challenge of the person, or to one used already', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const someoneElse = await signedInPerson(api, workspace.workspaceId, 'member');
    const options = await callProcedure(api, 'account.passkeyRegistrationOptions', undefined, someoneElse);
    const response = softwareAuthenticator().register(options.data, api.url);
    const stolen = await callProcedure(api, 'account.addPasskey', { name: 'Mine', response }, person);
    expect(stolen.status).toBe(400);
    expect(stolen.error?.message).toMatch(/could not be added: its challenge was not handed out to you/);

    const own = await callProcedure(api, 'account.passkeyRegistrationOptions', undefined, person);
    const answer = softwareAuthenticator().register(own.data, api.url);
    expect((await callProcedure(api, 'account.addPasskey', { name: 'Once', response: answer }, person)).status).toBe(
      200,
    );
    const replayed = await callProcedure(api, 'account.addPasskey', { name: 'Twice', response: answer }, person);
    expect(replayed.status).toBe(400);
    expect(replayed.error?.message).toMatch(/used already or has expired/);
  });

  it('refuses a registration made for another origin, naming it', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const options = await callProcedure(api, 'account.passkeyRegistrationOptions', undefined, person);
    const response = softwareAuthenticator().register(options.data, 'https://phish.example');
    const reply = await callProcedure(api, 'account.addPasskey', { name: 'Phished', response }, person);
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toMatch(/could not be added: .*origin "https:\/\/phish\.example"/);
  });

  it('refuses a passkey registered already', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const { authenticator } = await addPasskeyFor(person);
    const options = await callProcedure(api, 'account.passkeyRegistrationOptions', undefined, person);
    const response = authenticator.register(options.data, api.url);
    const reply = await callProcedure(api, 'account.addPasskey', { name: 'Same', response }, person);
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toBe('This passkey is registered already.');
  });

  it.each([
    ['an empty name', { name: '  ' }, /name/],
    ['a name too long', { name: 'x'.repeat(101) }, /name/],
    ['a response of the wrong type', { response: { type: 'password' } }, /response/],
    ['client data that is not base64url', { response: { response: { clientDataJSON: '%%%' } } }, /clientDataJSON/],
    ['an unknown field', { extra: true }, /extra/],
  ])('refuses %s, naming the field', async (_case, change, field) => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const options = await callProcedure(api, 'account.passkeyRegistrationOptions', undefined, person);
    const good = softwareAuthenticator().register(options.data, api.url);
    const { response: responseChange, ...rest } = change as { response?: Record<string, unknown> };
    const response = responseChange
      ? { ...good, ...responseChange, response: { ...good.response, ...(responseChange.response ?? {}) } }
      : good;
    const reply = await callInternal(api, 'account.addPasskey', { name: 'Key', response, ...rest }, person);
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toMatch(field);
  });

  it('refuses client data without a challenge, saying so', async () => {
    const response = { ...(await signInAnswer(softwareAuthenticator())) };
    response.response = { ...response.response, clientDataJSON: Buffer.from('{}').toString('base64url') };
    const reply = await signInWith(response);
    expect(reply.status).toBe(400);
    expect(reply.error?.message).toMatch(/clientDataJSON is not base64url-encoded client data with a challenge/);
  });
});

describe('401', () => {
  const REFUSED = /^This passkey did not sign you in\./;

  it('refuses a passkey nobody registered, a replayed answer, and a removed passkey, all alike', async () => {
    const stranger = await signInWith(await signInAnswer(softwareAuthenticator()));
    expect(stranger.status).toBe(401);
    expect(stranger.error?.message).toMatch(REFUSED);

    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const { authenticator, passkeyId } = await addPasskeyFor(person);
    const answer = await signInAnswer(authenticator);
    expect((await signInWith(answer)).status).toBe(200);
    const replayed = await signInWith(answer);
    expect(replayed.status).toBe(401);
    expect(replayed.error?.message).toBe(stranger.error?.message);
    expect(replayed.setCookie).toEqual([]);

    await callProcedure(api, 'account.removePasskey', { passkeyId }, person);
    const removed = await signInWith(await signInAnswer(authenticator));
    expect(removed.status).toBe(401);
    expect(removed.error?.message).toBe(stranger.error?.message);
  });

  it('refuses an answer signed for another origin, or whose signature is not the passkey’s', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const { authenticator } = await addPasskeyFor(person);
    const options = await callProcedure(api, 'account.passkeySignInOptions', undefined, asBrowser);
    const phished = await signInWith(authenticator.signIn(options.data, 'https://phish.example'));
    expect(phished.status).toBe(401);

    const forged = await signInAnswer(authenticator);
    const other = await signInAnswer(softwareAuthenticator());
    const reply = await signInWith({
      ...forged,
      response: { ...forged.response, signature: other.response.signature },
    });
    expect(reply.status).toBe(401);
    expect(reply.error?.message).toMatch(REFUSED);
  });

  it('refuses the passkey of a person who belongs to no workspace any more', async () => {
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    const { authenticator } = await addPasskeyFor(person);
    await rows(api.em(), sql`delete from memberships where user_id = ${person.userId}`);
    const reply = await signInWith(await signInAnswer(authenticator));
    expect(reply.status).toBe(401);
    expect(reply.error?.message).toMatch(REFUSED);
  });

  it('refuses root keys the passkeys of an account (they have none)', async () => {
    expectNoAccount(await callProcedure(api, 'account.listPasskeys', undefined, { rootKey: workspace.rootKey }));
  });
});

describe('404', () => {
  it('serves none of them at /v2: they are internal', async () => {
    const reply = await api.post('account.signInWithPasskey', { response: {} });
    expect(reply.status).toBe(404);
  });

  it("answers 404 for renaming or removing a passkey that is not one of the person's own", async () => {
    const owner = await signedInPerson(api, workspace.workspaceId, 'member');
    const { passkeyId } = await addPasskeyFor(owner);
    const other = await signedInPerson(api, workspace.workspaceId, 'owner');
    const rename = await callProcedure(api, 'account.renamePasskey', { passkeyId, name: 'Mine now' }, other);
    expect(rename.status).toBe(404);
    expect(rename.error?.data.type).toBe('service/data/passkey_not_found');
    const remove = await callProcedure(api, 'account.removePasskey', { passkeyId: 'pkey_unknown' }, other);
    expect(remove.status).toBe(404);
    expect(remove.error?.message).toBe("You have no passkey 'pkey_unknown'.");
    expect((await callProcedure(api, 'account.listPasskeys', undefined, owner)).data.passkeys).toHaveLength(1);
  });
});

describe('429', () => {
  it(`refuses an address after ${SIGN_IN_FAILURES_ALLOWED} failed passkey sign-ins, even with a good passkey`, async () => {
    const server = await serveOn(api, { trustProxy: { hops: 1 } });
    onTestFinished(() => server.close());
    const headers = { ...asBrowser.headers, 'X-Forwarded-For': '198.51.100.77' };
    const person = await signedInPerson(api, workspace.workspaceId, 'member');
    // Registered at this server's origin, so that its answers would sign in there.
    const authenticator = softwareAuthenticator();
    const options = await callProcedure(server, 'account.passkeyRegistrationOptions', undefined, person);
    const response = authenticator.register(options.data, server.url);
    expect((await callProcedure(server, 'account.addPasskey', { name: 'Key', response }, person)).status).toBe(200);

    for (let attempt = 0; attempt < SIGN_IN_FAILURES_ALLOWED; attempt++) {
      const refused = await signInWith(await signInAnswer(softwareAuthenticator(), server), server, headers);
      expect(refused.status).toBe(401);
    }
    const throttled = await signInWith(await signInAnswer(authenticator, server), server, headers);
    expect(throttled.status).toBe(429);
    expect(throttled.error?.data.type).toBe('user/too_many_requests/sign_in_throttled');
    expect(throttled.setCookie).toEqual([]);
    const elsewhere = await signInWith(await signInAnswer(authenticator, server), server, {
      ...asBrowser.headers,
      'X-Forwarded-For': '198.51.100.78',
    });
    expect(elsewhere.status).toBe(200);
  });

  it(`refuses an address more than ${PASSKEY_SIGN_IN_CHALLENGES_ALLOWED} sign-in challenges in a window`, async () => {
    const server = await serveOn(api, { trustProxy: { hops: 1 } });
    onTestFinished(() => server.close());
    const from = (address: string) => ({ headers: { ...asBrowser.headers, 'X-Forwarded-For': address } });
    for (let asked = 0; asked < PASSKEY_SIGN_IN_CHALLENGES_ALLOWED; asked++) {
      expect(
        (await callProcedure(server, 'account.passkeySignInOptions', undefined, from('198.51.100.79'))).status,
      ).toBe(200);
    }
    const refused = await callProcedure(server, 'account.passkeySignInOptions', undefined, from('198.51.100.79'));
    expect(refused.status).toBe(429);
    expect(refused.error?.message).toMatch(
      /^Too many passkey sign-ins started from this address\. Try again in \d+ s\.$/,
    );
    const other = await callProcedure(server, 'account.passkeySignInOptions', undefined, from('198.51.100.80'));
    expect(other.status).toBe(200);
  });
});
