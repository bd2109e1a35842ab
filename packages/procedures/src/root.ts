import { apisRouter } from './routers/apis/index.ts';
import { keysRouter } from './routers/keys/index.ts';
import { router } from './trpc.ts';

export const appRouter = router({
  apis: apisRouter,
  keys: keysRouter,
});

export type AppRouter = typeof appRouter;
