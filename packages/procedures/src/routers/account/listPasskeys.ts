import { listPasskeys as passkeysOf } from '@keyplane/db';
import { z } from 'zod';
import { personProcedure } from '../../trpc.ts';

export const listPasskeysOutput = z.object({
  passkeys: z.array(
    z.object({
      passkeyId: z.string(),
      name: z.string(),
      /** Unix ms. */
      createdAt: z.number(),
      /** Unix ms of the last sign-in with it; null: never used. */
      lastUsedAt: z.number().nullable(),
    }),
  ),
});

/** Internal (the dashboard): the signed-in person's passkeys, oldest first. */
export const listPasskeys = personProcedure.output(listPasskeysOutput).query(async ({ ctx }) => {
  const passkeys = await passkeysOf(ctx.em, ctx.person.userId);
  return {
    passkeys: passkeys.map(({ passkeyId, name, createdAt, lastUsedAt }) => ({
      passkeyId,
      name,
      createdAt,
      lastUsedAt,
    })),
  };
});
