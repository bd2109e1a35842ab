import { listRoles as listRoleRecords } from '@keyplane/db';
import { z } from 'zod';
import { rbacPermission, requirePermissions } from '../../middleware/auth.ts';
import { decodeCursor, listOutput, paginationInput, toPage } from '../../pagination.ts';
import { roleSchema, textSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const listRolesInput = z.strictObject({
  ...paginationInput,
  /** Case-insensitive "contains" on id, name or description. */
  search: textSchema.max(256).optional(),
});

export const listRolesOutput = listOutput(roleSchema);

export const listRoles = rootKeyProcedure
  .meta({ public: true, list: true, description: "Lists the workspace's roles with their permissions." })
  .input(listRolesInput)
  .output(listRolesOutput)
  .query(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [rbacPermission('read_role')]);
    const { workspaceId } = ctx.rootKey;
    const found = await listRoleRecords(ctx.em, workspaceId, {
      fromId: decodeCursor(workspaceId, input.cursor),
      count: input.limit + 1,
      search: input.search,
    });
    return toPage(workspaceId, found, input.limit, (role) => role);
  });
