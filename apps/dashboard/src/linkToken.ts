import { useEffect, useState } from 'react';

/**
 * The token of a one-time link (`/dashboard/invite#<token>`): it rides in the fragment, which the
 * browser never sends, so it stays out of server and proxy logs. Read once, then taken out of the
 * address bar (and so out of history and screenshots); a reload then finds none, and the page says so.
 */
export function useLinkToken(): string {
  const [token] = useState(() => decodeURIComponent(window.location.hash.replace(/^#/, '')));
  useEffect(() => {
    if (window.location.hash) {
      window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
    }
  }, []);
  return token;
}
