import { newId } from '@keyplane/core';
import { type EntityManager, sql, typed, unixMs } from './sql.ts';

export interface PasskeyRecord {
  passkeyId: string;
  userId: string;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/** Registers a credential for the person; undefined when that credential id is registered already. */
export async function addPasskey(
  em: EntityManager,
  passkey: {
    userId: string;
    credentialId: string;
    publicKey: Uint8Array;
    counter: number;
    transports: readonly string[];
    name: string;
  },
): Promise<string | undefined> {
  const created = await typed(em)
    .insertInto('passkeys')
    .values({
      id: newId('passkey'),
      user_id: passkey.userId,
      credential_id: passkey.credentialId,
      public_key: Buffer.from(passkey.publicKey),
      counter: passkey.counter,
      transports: [...passkey.transports],
      name: passkey.name,
      created_at: sql`now()`,
    })
    .onConflict((conflict) => conflict.column('credential_id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return created?.id;
}

const columns = [
  'id',
  'user_id',
  'credential_id',
  'public_key',
  'counter',
  'transports',
  'name',
  'created_at',
  'last_used_at',
] as const;

function toPasskey(row: {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: Uint8Array;
  counter: number;
  transports: string[];
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}): PasskeyRecord {
  return {
    passkeyId: row.id,
    userId: row.user_id,
    credentialId: row.credential_id,
    publicKey: new Uint8Array(row.public_key),
    counter: row.counter,
    transports: row.transports,
    name: row.name,
    createdAt: row.created_at.getTime(),
    lastUsedAt: unixMs(row.last_used_at),
  };
}

/** The person's passkeys, oldest first. */
export async function listPasskeys(em: EntityManager, userId: string): Promise<PasskeyRecord[]> {
  const found = await typed(em)
    .selectFrom('passkeys')
    .select(columns)
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return found.map(toPasskey);
}

/** The passkey an authenticator presents at sign-in, by its credential id. */
export async function findPasskeyByCredentialId(
  em: EntityManager,
  credentialId: string,
): Promise<PasskeyRecord | undefined> {
  const found = await typed(em)
    .selectFrom('passkeys')
    .select(columns)
    .where('credential_id', '=', credentialId)
    .executeTakeFirst();
  return found && toPasskey(found);
}

/** After a verified sign-in: the authenticator's new signature counter, and when. */
export async function recordPasskeyUse(em: EntityManager, passkeyId: string, counter: number): Promise<void> {
  await typed(em)
    .updateTable('passkeys')
    .set({ counter, last_used_at: sql<Date>`now()` })
    .where('id', '=', passkeyId)
    .execute();
}

/** Renames one of the person's passkeys; false when they have none by that id. */
export async function renamePasskey(
  em: EntityManager,
  userId: string,
  passkeyId: string,
  name: string,
): Promise<boolean> {
  const result = await typed(em)
    .updateTable('passkeys')
    .set({ name })
    .where('id', '=', passkeyId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Removes one of the person's passkeys; false when they have none by that id. */
export async function removePasskey(em: EntityManager, userId: string, passkeyId: string): Promise<boolean> {
  const result = await typed(em)
    .deleteFrom('passkeys')
    .where('id', '=', passkeyId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
