import { router } from '../../trpc.ts';
import { listRootKeys } from './listRootKeys.ts';

export const rootKeysRouter = router({ listRootKeys });
