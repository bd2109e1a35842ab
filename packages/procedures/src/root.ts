import { apisRouter } from './routers/apis/index.ts';
import { identitiesRouter } from './routers/identities/index.ts';
import { keysRouter } from './routers/keys/index.ts';
import { permissionsRouter } from './routers/permissions/index.ts';
import { rootKeysRouter } from './routers/rootKeys/index.ts';
import { router } from './trpc.ts';

export const appRouter = router({
  apis: apisRouter,
  identities: identitiesRouter,
  keys: keysRouter,
  permissions: permissionsRouter,
  rootKeys: rootKeysRouter,
});

export type AppRouter = typeof appRouter;
