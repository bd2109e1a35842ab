import { useQuery } from '@tanstack/react-query';
import { type ComponentType, lazy, type ReactNode, Suspense, useEffect } from 'react';
import { sessionQueryOptions } from './access.ts';
import { ErrorMessage } from './components/ErrorMessage.tsx';
import { Layout } from './components/Layout.tsx';
import { BlockSkeleton } from './components/Skeleton.tsx';
import { matchPath, Redirect, usePath } from './router.tsx';
import { SignIn } from './screens/SignIn.tsx';
import { trpcErrorCode } from './trpc.ts';

/**
 * A screen loaded with its route: each screen is a chunk of its own (React.lazy), so the first
 * page loads only the shell and the screen it shows.
 */
function screen<TProps extends object>(
  load: () => Promise<Record<string, unknown>>,
  name: string,
): ComponentType<TProps> {
  return lazy(async () => ({ default: (await load())[name] as ComponentType<TProps> }));
}

const AcceptInvitation = screen(() => import('./screens/LinkPages.tsx'), 'AcceptInvitation');
const AccountSettings = screen(() => import('./screens/AccountSettings.tsx'), 'AccountSettings');
const Members = screen(() => import('./screens/Members.tsx'), 'Members');
const ResetPassword = screen(() => import('./screens/LinkPages.tsx'), 'ResetPassword');
const SetupOwner = screen(() => import('./screens/LinkPages.tsx'), 'SetupOwner');
const Apis = screen(() => import('./screens/Apis.tsx'), 'Apis');
const ApiDetail = screen<{ apiId: string }>(() => import('./screens/ApiDetail.tsx'), 'ApiDetail');
const AuditLog = screen(() => import('./screens/AuditLog.tsx'), 'AuditLog');
const GettingStarted = screen(() => import('./screens/GettingStarted.tsx'), 'GettingStarted');
const Identities = screen(() => import('./screens/Identities.tsx'), 'Identities');
const IdentityDetail = screen<{ identity: string }>(() => import('./screens/IdentityDetail.tsx'), 'IdentityDetail');
const KeyDetail = screen<{ apiId: string; keyId: string }>(() => import('./screens/KeyDetail.tsx'), 'KeyDetail');
const NamespaceDetail = screen<{ namespace: string }>(() => import('./screens/NamespaceDetail.tsx'), 'NamespaceDetail');
const NotFound = screen(() => import('./screens/NotFound.tsx'), 'NotFound');
const Ratelimits = screen(() => import('./screens/Ratelimits.tsx'), 'Ratelimits');
const RolesAndPermissions = screen(() => import('./screens/RolesAndPermissions.tsx'), 'RolesAndPermissions');
const RootKeys = screen(() => import('./screens/RootKeys.tsx'), 'RootKeys');
const Usage = screen(() => import('./screens/Usage.tsx'), 'Usage');
const WebhookDetail = screen<{ endpointId: string }>(() => import('./screens/WebhookDetail.tsx'), 'WebhookDetail');
const Webhooks = screen(() => import('./screens/Webhooks.tsx'), 'Webhooks');
const WorkspaceSettings = screen(() => import('./screens/WorkspaceSettings.tsx'), 'WorkspaceSettings');

/** The one-time links' pages, shown whoever is signed in: each signs its holder in itself. */
const LINK_PAGES: Record<string, ComponentType> = {
  '/setup': SetupOwner,
  '/invite': AcceptInvitation,
  '/reset': ResetPassword,
};

/** The session decides between the sign-in page and the dashboard; nothing else is fetched before it. */
export function App() {
  const path = usePath();
  const LinkPage = LINK_PAGES[path];
  if (LinkPage) {
    return (
      <Suspense fallback={<ScreenLoading />}>
        <LinkPage />
      </Suspense>
    );
  }
  return <SessionGate />;
}

function SessionGate() {
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

const ROUTES: [string, (params: Record<string, string>) => ReactNode][] = [
  ['/', () => <Redirect to="/apis" />],
  ['/getting-started', () => <GettingStarted />],
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
  ['/settings', () => <WorkspaceSettings />],
  ['/members', () => <Members />],
  ['/account', () => <AccountSettings />],
];

function Screen() {
  const path = usePath();
  let content: ReactNode = <NotFound />;
  for (const [pattern, render] of ROUTES) {
    const params = matchPath(pattern, path);
    if (params) {
      content = render(params);
      break;
    }
  }
  return (
    <Suspense fallback={<ScreenLoading />}>
      {content}
      <FocusHeading path={path} />
    </Suspense>
  );
}

/** While a screen's code loads: the shape of a page, announced. */
function ScreenLoading() {
  return (
    <div role="status" aria-label="Loading the page">
      <BlockSkeleton height="2rem" />
      <div style={{ height: '1rem' }} />
      <BlockSkeleton height="16rem" />
    </div>
  );
}

/**
 * A screen change moves focus to the new page's heading, as a page load would for screen readers:
 * once the screen's code has loaded and it shows (this sits inside the same Suspense boundary).
 */
function FocusHeading({ path }: { path: string }) {
  useEffect(() => {
    if (path) document.querySelector<HTMLElement>('main h1')?.focus();
  }, [path]);
  return null;
}
