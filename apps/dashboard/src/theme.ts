import { useSyncExternalStore } from 'react';

/** What the user chose: the system's setting (the default), or light or dark whatever it is. */
export type ThemeChoice = 'system' | 'light' | 'dark';

// Kept in this browser only: a preference of the person, not of the workspace.
const STORAGE_KEY = 'keyplane:theme';
const DARK_QUERY = '(prefers-color-scheme: dark)';

const listeners = new Set<() => void>();

function storedChoice(): ThemeChoice {
  const stored = localStorage.getItem(STORAGE_KEY);
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

let choice: ThemeChoice = storedChoice();

/** The theme drawn now: the choice, or for `system` what the system prefers. */
export function resolvedTheme(current = choice): 'light' | 'dark' {
  if (current !== 'system') return current;
  return window.matchMedia(DARK_QUERY).matches ? 'dark' : 'light';
}

/**
 * Puts the theme on <html> as a class (`dark` or `light`), which the stylesheet's colour tokens
 * follow, and `color-scheme`, which the browser's own controls and scrollbars follow.
 */
function apply(): void {
  const theme = resolvedTheme();
  const root = document.documentElement;
  root.classList.toggle('dark', theme === 'dark');
  root.classList.toggle('light', theme === 'light');
  root.style.colorScheme = theme;
  for (const listener of listeners) listener();
}

/** Applies the stored choice and follows the system's setting while the choice is `system`. */
export function startTheme(): void {
  apply();
  window.matchMedia(DARK_QUERY).addEventListener('change', () => {
    if (choice === 'system') apply();
  });
  // Another tab changed the choice.
  window.addEventListener('storage', (event) => {
    if (event.key !== STORAGE_KEY) return;
    choice = storedChoice();
    apply();
  });
}

export function setThemeChoice(next: ThemeChoice): void {
  choice = next;
  if (next === 'system') localStorage.removeItem(STORAGE_KEY);
  else localStorage.setItem(STORAGE_KEY, next);
  apply();
}

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  return () => listeners.delete(onChange);
}

/** The choice, and the theme it resolves to, re-read whenever either changes. */
export function useTheme(): { choice: ThemeChoice; theme: 'light' | 'dark' } {
  const current = useSyncExternalStore(subscribe, () => choice);
  const theme = useSyncExternalStore(subscribe, () => resolvedTheme());
  return { choice: current, theme };
}
