import { apisRouter } from './routers/apis/index.ts';
import { keysRouter } from './routers/keys/index.ts';
import { rootKeysRouter } from './routers/rootKeys/index.ts';
import { router } from './trpc.ts';

export const appRouter = router({
  apis: apisRouter,
  keys: keysRouter,
  rootKeys: rootKeysRouter,
});

export type AppRouter = typeof appRouter;
