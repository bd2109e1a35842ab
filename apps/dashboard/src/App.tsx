import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { sessionQueryOptions } from './access.ts';
import { ErrorMessage } from './components/ErrorMessage.tsx';
import { Layout } from './components/Layout.tsx';
import { matchPath, Redirect, usePath } from './router.tsx';
import { ApiDetail } from './screens/ApiDetail.tsx';
import { Apis } from './screens/Apis.tsx';
import { AuditLog } from './screens/AuditLog.tsx';
import { Identities } from './screens/Identities.tsx';
import { IdentityDetail } from './screens/IdentityDetail.tsx';
import { KeyDetail } from './screens/KeyDetail.tsx';
import { NamespaceDetail } from './screens/NamespaceDetail.tsx';
import { NotFound } from './screens/NotFound.tsx';
import { Ratelimits } from './screens/Ratelimits.tsx';
import { RolesAndPermissions } from './screens/RolesAndPermissions.tsx';
import { RootKeys } from './screens/RootKeys.tsx';
import { SignIn } from './screens/SignIn.tsx';
import { Usage } from './screens/Usage.tsx';
import { WebhookDetail } from './screens/WebhookDetail.tsx';
import { Webhooks } from './screens/Webhooks.tsx';
import { trpcErrorCode } from './trpc.ts';

/** The session decides between the sign-in page and the dashboard; nothing else is fetched before it. */
export function App() {
  const session = useQuery(sessionQueryOptions);

  if (session.isError && trpcErrorCode(session.error) === 'UNAUTHORIZED') return <SignIn />;
  // A failed refresh of a session already known (offline for a moment) keeps the dashboard: each
  // screen reports its own failures.
  if (session.data) {
    return (
      <Layout session={session.data}>
        <Screen />
      </Layout>
    );
  }
  if (session.isPending) {
    return (
      <p className="centered" role="status">
        Loading…
      </p>
    );
  }
  return (
    <main className="centered">
      <ErrorMessage error={session.error} onRetry={() => void session.refetch()} />
    </main>
  );
}

function Screen() {
  const path = usePath();
  const routes: [string, (params: Record<string, string>) => ReactNode][] = [
    ['/', () => <Redirect to="/apis" />],
    ['/root-keys', () => <RootKeys />],
    ['/apis', () => <Apis />],
    ['/apis/:apiId', ({ apiId = '' }) => <ApiDetail key={apiId} apiId={apiId} />],
    ['/apis/:apiId/keys/:keyId', ({ apiId = '', keyId = '' }) => <KeyDetail key={keyId} apiId={apiId} keyId={keyId} />],
    ['/roles', () => <RolesAndPermissions />],
    ['/identities', () => <Identities />],
    ['/identities/:identity', ({ identity = '' }) => <IdentityDetail key={identity} identity={identity} />],
    ['/ratelimits', () => <Ratelimits />],
    ['/ratelimits/:namespace', ({ namespace = '' }) => <NamespaceDetail key={namespace} namespace={namespace} />],
    ['/usage', () => <Usage />],
    ['/webhooks', () => <Webhooks />],
    ['/webhooks/:endpointId', ({ endpointId = '' }) => <WebhookDetail key={endpointId} endpointId={endpointId} />],
    ['/audit', () => <AuditLog />],
  ];
  for (const [pattern, render] of routes) {
    const params = matchPath(pattern, path);
    if (params) return render(params);
  }
  return <NotFound />;
}
