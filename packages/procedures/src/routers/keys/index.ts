import { router } from '../../trpc.ts';
import { addPermissions } from './addPermissions.ts';
import { addRoles } from './addRoles.ts';
import { createKey } from './createKey.ts';
import { deleteKey } from './deleteKey.ts';
import { getKey } from './getKey.ts';
import { getKeyAccess } from './getKeyAccess.ts';
import { listVerifications } from './listVerifications.ts';
import { migrateKeys } from './migrateKeys.ts';
import { removePermissions } from './removePermissions.ts';
import { removeRoles } from './removeRoles.ts';
import { rerollKey } from './rerollKey.ts';
import { setPermissions } from './setPermissions.ts';
import { setRoles } from './setRoles.ts';
import { updateCredits } from './updateCredits.ts';
import { updateKey } from './updateKey.ts';
import { verifyKey } from './verifyKey.ts';
import { whoami } from './whoami.ts';

export const keysRouter = router({
  createKey,
  verifyKey,
  updateKey,
  addPermissions,
  removePermissions,
  setPermissions,
  addRoles,
  removeRoles,
  setRoles,
  migrateKeys,
  getKey,
  getKeyAccess,
  listVerifications,
  whoami,
  deleteKey,
  updateCredits,
  rerollKey,
});
