import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { useEffect, useSyncExternalStore } from 'react';

// A History API router for a handful of routes. Paths inside the app are written without the base
// ('/apis/api_1'); the browser sees them under Vite's base ('/dashboard/apis/api_1').

const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');
const NAVIGATE_EVENT = 'keyplane:navigate';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(NAVIGATE_EVENT, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(NAVIGATE_EVENT, onChange);
  };
}

function currentPath(): string {
  const { pathname } = window.location;
  const inside = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  return inside === '' ? '/' : inside;
}

export function usePath(): string {
  return useSyncExternalStore(subscribe, currentPath);
}

const currentSearch = () => window.location.search;

/** The current query string ('?q=…', or '' for none), re-read on every navigation. */
export function useSearch(): string {
  return useSyncExternalStore(subscribe, currentSearch);
}

/** Replaces the query string of the current path: a new history entry, unless `replace`. */
export function navigateSearch(params: URLSearchParams, options: { replace?: boolean } = {}): void {
  const query = params.toString();
  navigate(currentPath() + (query ? `?${query}` : ''), options);
}

// Forms with edits not saved yet register here (useLeaveGuard): leaving their page asks first.
const leaveGuards = new Set<{ message: string }>();

/** Whether the user lets the page go, asked once when some form holds edits. */
function mayLeave(): boolean {
  const [guard] = leaveGuards;
  return guard === undefined || window.confirm(guard.message);
}

const pathOf = (to: string) => to.split(/[?#]/)[0] ?? to;

// Back and Forward: a page with edits asks too, and on "Cancel" puts its own address back.
let shownUrl = typeof window === 'undefined' ? '' : window.location.href;
if (typeof window !== 'undefined') {
  window.addEventListener('popstate', (event) => {
    const leaving = new URL(shownUrl).pathname !== window.location.pathname;
    if (leaving && leaveGuards.size > 0 && !mayLeave()) {
      // Registered before any screen subscribes: the screens never see this step.
      event.stopImmediatePropagation();
      window.history.pushState(null, '', shownUrl);
      return;
    }
    shownUrl = window.location.href;
  });
}

/**
 * While `edited`, leaving the page asks first: a link or Back in the app with a confirmation, and
 * closing or reloading the tab with the browser's own question.
 */
export function useLeaveGuard(
  edited: boolean,
  message = 'You have changes that are not saved. Leave this page and lose them?',
): void {
  useEffect(() => {
    if (!edited) return;
    const guard = { message };
    leaveGuards.add(guard);
    const beforeUnload = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', beforeUnload);
    return () => {
      leaveGuards.delete(guard);
      window.removeEventListener('beforeunload', beforeUnload);
    };
  }, [edited, message]);
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (pathOf(to) !== currentPath() && !mayLeave()) return;
  const url = BASE + to;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  shownUrl = window.location.href;
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
}

/** The segments of `path` when it matches `pattern` (':name' matches one segment), else undefined. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const expected = pattern.split('/').filter(Boolean);
  const actual = path.split('/').filter(Boolean);
  if (expected.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, segment] of expected.entries()) {
    const value = actual[index] ?? '';
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(value);
    else if (segment !== value) return undefined;
  }
  return params;
}

interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  to: string;
}

/** A real link (open in new tab works) that navigates in-app on a plain click. */
export function Link({ to, onClick, ...props }: LinkProps) {
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    const modified = event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || event.button !== 0;
    if (event.defaultPrevented || modified) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={BASE + to} onClick={handleClick} {...props} />;
}

/** Replaces the current entry, e.g. '/' by the default screen. */
export function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}
