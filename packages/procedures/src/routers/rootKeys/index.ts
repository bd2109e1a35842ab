import { router } from '../../trpc.ts';
import { createRootKey } from './createRootKey.ts';
import { listRootKeys } from './listRootKeys.ts';
import { permissionCatalog } from './permissionCatalog.ts';
import { revokeRootKey } from './revokeRootKey.ts';
import { updateRootKey } from './updateRootKey.ts';

export const rootKeysRouter = router({ createRootKey, listRootKeys, permissionCatalog, revokeRootKey, updateRootKey });
