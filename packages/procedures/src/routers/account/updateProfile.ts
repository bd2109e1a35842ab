import { setUserName } from '@keyplane/db';
import { z } from 'zod';
import { personProcedure } from '../../trpc.ts';
import { personNameSchema } from './fields.ts';

export const updateProfileInput = z.strictObject({ name: personNameSchema });

export const updateProfileOutput = z.object({ name: z.string() });

/** Internal (account settings): renames the signed-in person, in every workspace they belong to. */
export const updateProfile = personProcedure
  .input(updateProfileInput)
  .output(updateProfileOutput)
  .mutation(async ({ ctx, input }) => {
    await setUserName(ctx.em, ctx.person.userId, input.name);
    return { name: input.name };
  });
