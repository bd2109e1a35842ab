import { listRoles as listRoleRecords } from '@keyplane/db';
import { z } from 'zod';
import { rbacPermission, requirePermissions } from '../../middleware/auth.ts';
import { chosenPage, decodeCursor, listOutput, MAX_PAGE_PERMISSIONS, paginationInput } from '../../pagination.ts';
import { roleSchema, textSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const listRolesInput = z.strictObject({
  ...paginationInput,
  /** Case-insensitive "contains" on id, name or description. */
  search: textSchema.max(256).optional(),
});

export const listRolesOutput = listOutput(roleSchema);

/**
 * The workspace's roles in id order, each with its permissions. A page ends early once its roles
 * would carry more than MAX_PAGE_PERMISSIONS permissions between them (docs/contract.md#limits).
 */
export const listRoles = rootKeyProcedure
  .meta({ public: true, list: true, description: "Lists the workspace's roles with their permissions." })
  .input(listRolesInput)
  .output(listRolesOutput)
  .query(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [rbacPermission('read_role')]);
    const { workspaceId } = ctx.rootKey;
    const found = await listRoleRecords(
      ctx.em,
      workspaceId,
      { fromId: decodeCursor(workspaceId, input.cursor), count: input.limit + 1, search: input.search },
      MAX_PAGE_PERMISSIONS,
    );
    return chosenPage(workspaceId, found, (role) => role);
  });
