import { router } from '../../trpc.ts';
import { createPermission } from './createPermission.ts';
import { createRole } from './createRole.ts';
import { deletePermission } from './deletePermission.ts';
import { deleteRole } from './deleteRole.ts';
import { getPermission } from './getPermission.ts';
import { getRole } from './getRole.ts';
import { listPermissions } from './listPermissions.ts';
import { listRoles } from './listRoles.ts';
import { setRolePermissions } from './setRolePermissions.ts';

export const permissionsRouter = router({
  createPermission,
  getPermission,
  listPermissions,
  deletePermission,
  createRole,
  getRole,
  listRoles,
  deleteRole,
  setRolePermissions,
});
