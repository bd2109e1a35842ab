import {
  badRequest,
  isGrantablePermission,
  issueRootKey,
  requireHeldPermissions,
  requireRootKeyExpiryAllowed,
} from '@keyplane/core';
import { rootKeyStore } from '@keyplane/db';
import { z } from 'zod';
import { MANAGE_ROOT_KEYS, requirePermissions } from '../../middleware/auth.ts';
import { textSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const createRootKeyInput = z.strictObject({
  name: textSchema.min(1).max(255).optional(),
  /** `resourceType.resourceId.action` tuples, such as `api.*.verify_key` or `api.api_123.read_key`. */
  permissions: z.array(textSchema.min(1).max(512)).min(1).max(1000),
  /** Unix ms; the key stops working then. */
  expires: z.number().int().positive().optional(),
});

export const createRootKeyOutput = z.object({
  rootKeyId: z.string(),
  /** The only time the key is shown: only its hash is stored. */
  key: z.string(),
});

/**
 * Internal (dashboard and typed client only). A root key may hand out only what it holds itself,
 * so managing root keys never escalates to permissions the operator lacks (403 naming them), and
 * may not create a key that lives longer than it will itself (403).
 */
export const createRootKey = rootKeyProcedure
  .input(createRootKeyInput)
  .output(createRootKeyOutput)
  .mutation(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [MANAGE_ROOT_KEYS]);
    requireGrantable(input.permissions);
    requireHeldPermissions(ctx.rootKey.permissions, input.permissions);
    if (input.expires !== undefined && input.expires <= ctx.services.now()) {
      throw badRequest('`expires` must be in the future.', [
        { location: 'body.expires', message: 'must be a unix timestamp in milliseconds after now' },
      ]);
    }
    requireRootKeyExpiryAllowed({ caller: ctx.rootKey.expiresAt, requested: input.expires ?? null });
    const issued = await ctx.em.transactional((tx) =>
      issueRootKey(rootKeyStore(tx), {
        workspaceId: ctx.rootKey.workspaceId,
        name: input.name,
        permissions: input.permissions,
        expiresAt: input.expires === undefined ? undefined : new Date(input.expires),
      }),
    );
    return { rootKeyId: issued.rootKeyId, key: issued.rootKey };
  });

function requireGrantable(permissions: readonly string[]): void {
  const invalid = permissions.flatMap((permission, index) =>
    isGrantablePermission(permission)
      ? []
      : [
          {
            location: `body.permissions[${index}]`,
            message: `'${permission}' is not a root-key permission`,
            fix: 'Use resourceType.resourceId.action, such as api.*.verify_key.',
          },
        ],
  );
  if (invalid.length > 0) {
    const names = invalid.map((error) => error.message).join('; ');
    throw badRequest(`Invalid permissions: ${names}.`, invalid);
  }
}
