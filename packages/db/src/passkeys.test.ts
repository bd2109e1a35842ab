import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createUser } from './members.ts';
import {
  addPasskey,
  findPasskeyByCredentialId,
  listPasskeys,
  recordPasskeyUse,
  removePasskey,
  renamePasskey,
} from './passkeys.ts';
import { createTestDatabase, type TestDatabase } from './testing/index.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
});
afterAll(async () => {
  await database.drop();
});

const em = () => database.orm.em.fork();

let people = 0;
async function newUser(): Promise<string> {
  const userId = await createUser(em(), { email: `p${++people}@example.com`, name: 'Pat', passwordHash: null });
  if (!userId) throw new Error('email taken');
  return userId;
}

const credential = (credentialId: string) => ({
  credentialId,
  publicKey: new Uint8Array([1, 2, 3, 250]),
  counter: 0,
  transports: ['internal', 'hybrid'],
  name: 'Laptop',
});

describe('passkeys', () => {
  it('adds, lists, renames and removes a person’s passkeys', async () => {
    const userId = await newUser();
    const passkeyId = await addPasskey(em(), { userId, ...credential('cred-a') });
    expect(passkeyId).toMatch(/^pkey_/);
    const [listed] = await listPasskeys(em(), userId);
    expect(listed).toMatchObject({
      passkeyId,
      userId,
      credentialId: 'cred-a',
      publicKey: new Uint8Array([1, 2, 3, 250]),
      counter: 0,
      transports: ['internal', 'hybrid'],
      name: 'Laptop',
      lastUsedAt: null,
    });
    expect(await renamePasskey(em(), userId, passkeyId as string, 'Work laptop')).toBe(true);
    expect((await listPasskeys(em(), userId))[0]?.name).toBe('Work laptop');
    expect(await removePasskey(em(), userId, passkeyId as string)).toBe(true);
    expect(await removePasskey(em(), userId, passkeyId as string)).toBe(false);
    expect(await listPasskeys(em(), userId)).toEqual([]);
  });

  it('registers a credential id once', async () => {
    const [one, two] = [await newUser(), await newUser()];
    expect(await addPasskey(em(), { userId: one, ...credential('cred-b') })).toBeDefined();
    expect(await addPasskey(em(), { userId: two, ...credential('cred-b') })).toBeUndefined();
    expect((await findPasskeyByCredentialId(em(), 'cred-b'))?.userId).toBe(one);
  });

  it('records a sign-in’s counter and time', async () => {
    const userId = await newUser();
    const passkeyId = (await addPasskey(em(), { userId, ...credential('cred-c') })) as string;
    await recordPasskeyUse(em(), passkeyId, 7);
    expect(await findPasskeyByCredentialId(em(), 'cred-c')).toMatchObject({
      counter: 7,
      lastUsedAt: expect.any(Number),
    });
  });

  it('cannot rename or remove another person’s passkey', async () => {
    const [owner, other] = [await newUser(), await newUser()];
    const passkeyId = (await addPasskey(em(), { userId: owner, ...credential('cred-d') })) as string;
    expect(await renamePasskey(em(), other, passkeyId, 'Mine now')).toBe(false);
    expect(await removePasskey(em(), other, passkeyId)).toBe(false);
    expect(await listPasskeys(em(), other)).toEqual([]);
    expect((await listPasskeys(em(), owner))[0]?.name).toBe('Laptop');
  });
});
