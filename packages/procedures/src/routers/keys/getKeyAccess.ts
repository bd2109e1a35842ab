import { findKeyGrants } from '@keyplane/db';
import { z } from 'zod';
import { loadAuthorizedKey } from '../../middleware/keys.ts';
import { resourceIdSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const getKeyAccessInput = z.strictObject({ keyId: resourceIdSchema });

export const getKeyAccessOutput = z.object({
  /** The key's roles, by name. */
  roles: z.array(z.string()),
  /** The slugs granted to the key itself, not through its roles. */
  directPermissions: z.array(z.string()),
  /** Whether the key is stored encrypted, so that `keys.getKey` with `decrypt` can show it. */
  recoverable: z.boolean(),
});

/**
 * Internal (the dashboard's key page): what `keys.setRoles` and `keys.setPermissions` replace, and
 * whether the key can be revealed. `keys.getKey` answers every slug the key holds, direct and
 * through roles mixed, as the reference does, so an editor cannot tell them apart from it.
 */
export const getKeyAccess = rootKeyProcedure
  .input(getKeyAccessInput)
  .output(getKeyAccessOutput)
  .query(async ({ ctx, input }) => {
    const key = await loadAuthorizedKey(ctx, input.keyId, ['read_key']);
    return findKeyGrants(ctx.em, key.id);
  });
