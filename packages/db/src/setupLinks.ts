import { type EntityManager, sql, typed } from './sql.ts';

/** Stores a first-run setup link by its token's hash. */
export async function createSetupLink(
  em: EntityManager,
  link: { tokenHash: string; expiresAt: number },
): Promise<void> {
  await typed(em)
    .insertInto('setup_links')
    .values({ token_hash: link.tokenHash, expires_at: new Date(link.expiresAt), created_at: sql`now()` })
    .execute();
}

/**
 * Uses the setup link up: true once, for an unexpired link, false ever after (and for any other
 * token). One statement, so of two uses at once exactly one succeeds.
 */
export async function consumeSetupLink(em: EntityManager, tokenHash: string): Promise<boolean> {
  const used = await typed(em)
    .updateTable('setup_links')
    .set({ used_at: sql<Date>`now()` })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returning('token_hash')
    .executeTakeFirst();
  return used !== undefined;
}
