import { router } from '../../trpc.ts';
import { createKey } from './createKey.ts';

export const keysRouter = router({ createKey });
