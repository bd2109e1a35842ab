import { accountRouter } from './routers/account/index.ts';
import { analyticsRouter } from './routers/analytics/index.ts';
import { apisRouter } from './routers/apis/index.ts';
import { auditRouter } from './routers/audit/index.ts';
import { dashboardRouter } from './routers/dashboard/index.ts';
import { identitiesRouter } from './routers/identities/index.ts';
import { keysRouter } from './routers/keys/index.ts';
import { membersRouter } from './routers/members/index.ts';
import { permissionsRouter } from './routers/permissions/index.ts';
import { portalRouter } from './routers/portal/index.ts';
import { ratelimitRouter } from './routers/ratelimit/index.ts';
import { rootKeysRouter } from './routers/rootKeys/index.ts';
import { webhooksRouter } from './routers/webhooks/index.ts';
import { workspaceRouter } from './routers/workspace/index.ts';
import { router } from './trpc.ts';

export const appRouter = router({
  account: accountRouter,
  analytics: analyticsRouter,
  apis: apisRouter,
  audit: auditRouter,
  dashboard: dashboardRouter,
  identities: identitiesRouter,
  keys: keysRouter,
  members: membersRouter,
  permissions: permissionsRouter,
  portal: portalRouter,
  ratelimit: ratelimitRouter,
  rootKeys: rootKeysRouter,
  webhooks: webhooksRouter,
  workspace: workspaceRouter,
});

export type AppRouter = typeof appRouter;
