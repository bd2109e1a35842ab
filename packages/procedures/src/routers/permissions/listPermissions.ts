import { listPermissions as listPermissionRecords } from '@keyplane/db';
import { z } from 'zod';
import { rbacPermission, requirePermissions } from '../../middleware/auth.ts';
import { decodeCursor, listOutput, paginationInput, toPage } from '../../pagination.ts';
import { permissionSchema, textSchema } from '../../schemas.ts';
import { rootKeyProcedure } from '../../trpc.ts';

export const listPermissionsInput = z.strictObject({
  ...paginationInput,
  /** Case-insensitive "contains" on id, name, slug or description. */
  search: textSchema.max(256).optional(),
});

export const listPermissionsOutput = listOutput(permissionSchema);

export const listPermissions = rootKeyProcedure
  .meta({ public: true, list: true, description: "Lists the workspace's permissions." })
  .input(listPermissionsInput)
  .output(listPermissionsOutput)
  .query(async ({ ctx, input }) => {
    requirePermissions(ctx.rootKey, [rbacPermission('read_permission')]);
    const { workspaceId } = ctx.rootKey;
    const found = await listPermissionRecords(ctx.em, workspaceId, {
      fromId: decodeCursor(workspaceId, input.cursor),
      count: input.limit + 1,
      search: input.search,
    });
    return toPage(workspaceId, found, input.limit, (permission) => permission);
  });
