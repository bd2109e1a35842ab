import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { formatTime } from '../format.ts';
import { Link, usePath } from '../router.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';
import { ErrorMessage } from './ErrorMessage.tsx';

const NAV_ITEMS = [
  { to: '/root-keys', label: 'Root keys' },
  { to: '/apis', label: 'APIs' },
  { to: '/roles', label: 'Roles & permissions' },
  { to: '/identities', label: 'Identities' },
  { to: '/ratelimits', label: 'Rate limits' },
  { to: '/usage', label: 'Usage' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/audit', label: 'Audit log' },
];

interface LayoutProps {
  session: RouterOutputs['dashboard']['session'];
  children: ReactNode;
}

export function Layout({ session, children }: LayoutProps) {
  const path = usePath();
  const queryClient = useQueryClient();
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

  // A screen change moves focus to the new page's heading, as a page load would for screen readers.
  useEffect(() => {
    if (path) document.querySelector<HTMLElement>('main h1')?.focus();
    setMenuOpen(false);
  }, [path]);

  return (
    <div className="layout">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-navigation"
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        <span className="brand">Keyplane</span>
        <span className="session-info">
          Signed in with {session.rootKeyName ?? session.rootKeyId} · until {formatTime(session.expiresAt)}
        </span>
        <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          Sign out
        </button>
      </header>
      <nav id="main-navigation" className={menuOpen ? 'sidebar open' : 'sidebar'} aria-label="Main">
        <ul>
          {NAV_ITEMS.map((item) => {
            const current = path === item.to || path.startsWith(`${item.to}/`);
            return (
              <li key={item.to}>
                <Link to={item.to} aria-current={current ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" className="content">
        {signOut.error ? <ErrorMessage error={signOut.error} /> : null}
        {children}
      </main>
    </div>
  );
}
