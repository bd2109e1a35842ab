import { isGranted } from '@keyplane/core/rules';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  BarChart3,
  Boxes,
  Gauge,
  KeyRound,
  LogOut,
  type LucideIcon,
  Menu,
  Rocket,
  ScrollText,
  Settings,
  ShieldCheck,
  UserCog,
  Users,
  Webhook,
} from 'lucide-react';
import { type ReactNode, useEffect, useState } from 'react';
import { READ_MEMBERS_PERMISSION, READ_ROOT_KEYS_PERMISSION } from '../access.ts';
import { Link, usePath } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { AccountMenu } from './AccountMenu.tsx';
import { ErrorMessage } from './ErrorMessage.tsx';
import { ThemeMenu } from './ThemeMenu.tsx';

interface NavItem {
  to: string;
  label: string;
  icon: LucideIcon;
  /** Shown only to a session that may use it (the screen would only say it may not). */
  shownTo?: (session: LayoutProps['session']) => boolean;
}

const readsMembers = (session: LayoutProps['session']) => isGranted(session.permissions, READ_MEMBERS_PERMISSION);
const readsRootKeys = (session: LayoutProps['session']) => isGranted(session.permissions, READ_ROOT_KEYS_PERMISSION);

/** The screens, in the order of the work: set up, then run and watch; the workspace last. */
const NAV_GROUPS: NavItem[][] = [
  [{ to: '/getting-started', label: 'Get started', icon: Rocket }],
  [
    { to: '/apis', label: 'APIs', icon: Boxes },
    { to: '/identities', label: 'Identities', icon: Users },
    { to: '/roles', label: 'Roles & permissions', icon: ShieldCheck },
    { to: '/ratelimits', label: 'Rate limits', icon: Gauge },
  ],
  [
    { to: '/usage', label: 'Usage', icon: BarChart3 },
    { to: '/webhooks', label: 'Webhooks', icon: Webhook },
    { to: '/audit', label: 'Audit log', icon: ScrollText },
  ],
  [
    { to: '/members', label: 'Members', icon: UserCog, shownTo: readsMembers },
    { to: '/root-keys', label: 'Root keys', icon: KeyRound, shownTo: readsRootKeys },
    { to: '/settings', label: 'Settings', icon: Settings },
  ],
];

interface LayoutProps {
  session: RouterOutputs['dashboard']['session'];
  children: ReactNode;
}

export function Layout({ session, children }: LayoutProps) {
  const path = usePath();
  const queryClient = useQueryClient();
  const workspace = useQuery(trpc.workspace.getWorkspace.queryOptions(undefined, { staleTime: 60_000 }));
  const signOut = useMutation(
    trpc.dashboard.signOut.mutationOptions({
      onSuccess: async () => {
        // Nothing of the workspace stays in memory once signed out.
        await queryClient.resetQueries({ queryKey: trpc.dashboard.session.queryKey() });
        queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'dashboard' });
      },
    }),
  );

  // On a phone the navigation is a menu behind a button; it closes once a screen is chosen.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    if (path) setMenuOpen(false);
  }, [path]);

  return (
    <div className="layout">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="menu-button icon ghost"
          aria-expanded={menuOpen}
          aria-controls="main-navigation"
          onClick={() => setMenuOpen((open) => !open)}
        >
          <Menu size={18} aria-hidden="true" />
          Menu
        </button>
        <Link to="/apis" className="brand" aria-label="Keyplane, home">
          <span className="brand-mark" aria-hidden="true">
            <KeyRound size={14} strokeWidth={2.5} />
          </span>
          Keyplane
        </Link>
        {workspace.data ? (
          <span className="workspace-name" title={`Workspace ${workspace.data.workspaceId}`}>
            {workspace.data.name}
          </span>
        ) : null}
        <div className="topbar-actions">
          <AccountMenu session={session} />
          <ThemeMenu />
          <button type="button" className="ghost" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            <LogOut size={16} aria-hidden="true" />
            Sign out
          </button>
        </div>
      </header>
      <nav id="main-navigation" className={menuOpen ? 'sidebar open' : 'sidebar'} aria-label="Main">
        <ul>
          {NAV_GROUPS.map((group, index) => (
            <li key={group[0]?.to} className="contents">
              {index > 0 ? <div className="nav-separator" aria-hidden="true" /> : null}
              <ul className="contents">
                {group
                  .filter(({ shownTo }) => shownTo?.(session) ?? true)
                  .map(({ to, label, icon: Icon }) => {
                    const current = path === to || path.startsWith(`${to}/`);
                    return (
                      <li key={to}>
                        <Link to={to} aria-current={current ? 'page' : undefined}>
                          <Icon size={16} aria-hidden="true" />
                          {label}
                        </Link>
                      </li>
                    );
                  })}
              </ul>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="content">
        {signOut.error ? <ErrorMessage error={signOut.error} /> : null}
        {children}
      </main>
    </div>
  );
}
