import { router } from '../../trpc.ts';
import { createKey } from './createKey.ts';
import { verifyKey } from './verifyKey.ts';

export const keysRouter = router({ createKey, verifyKey });
