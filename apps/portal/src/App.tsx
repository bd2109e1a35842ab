import { useCallback, useEffect, useState } from 'react';
import { isUnauthorized, type PortalSession, problemText } from './api.ts';
import { accentVariables, safeColour, safeLinkUrl, safeLogoUrl } from './brand.ts';
import { KeysPanel } from './KeysPanel.tsx';
import { CodeRefused, remembered, startSession } from './session.ts';
import { UsagePanel } from './UsagePanel.tsx';

type Phase =
  | { kind: 'starting' }
  | { kind: 'ready'; session: PortalSession }
  | { kind: 'ended'; why: 'expired' | 'link' }
  | { kind: 'failed'; message: string };

/** Timers fire at most this far ahead (setTimeout's limit is 2^31 - 1 ms). */
const MAX_TIMER_MS = 2_147_483_647;

export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'starting' });

  useEffect(() => {
    let current = true;
    startSession().then(
      (session) => current && setPhase({ kind: 'ready', session }),
      (error: unknown) => {
        if (!current) return;
        if (error instanceof CodeRefused) setPhase({ kind: 'ended', why: 'link' });
        else if (isUnauthorized(error)) setPhase({ kind: 'ended', why: 'expired' });
        else setPhase({ kind: 'failed', message: problemText(error) });
      },
    );
    return () => {
      current = false;
    };
  }, []);

  const expiresAt = phase.kind === 'ready' ? phase.session.expiresAt : undefined;
  useEffect(() => {
    if (expiresAt === undefined) return;
    const timer = setTimeout(
      () => setPhase({ kind: 'ended', why: 'expired' }),
      Math.min(MAX_TIMER_MS, Math.max(0, expiresAt - Date.now())),
    );
    return () => clearTimeout(timer);
  }, [expiresAt]);

  const onSessionEnd = useCallback(() => setPhase({ kind: 'ended', why: 'expired' }), []);

  useEffect(() => {
    const name = phase.kind === 'ready' ? phase.session.portal.displayName : remembered().displayName;
    document.title = name ? `API keys · ${name}` : 'API keys';
  }, [phase]);

  if (phase.kind === 'starting') {
    return (
      <main className="centred" aria-busy="true">
        <p role="status">Opening your API keys…</p>
      </main>
    );
  }
  if (phase.kind === 'failed') {
    return (
      <main className="centred">
        <h1>Something went wrong</h1>
        <p role="alert">{phase.message}</p>
        <button
          type="button"
          className="primary"
          onClick={() => {
            window.location.reload();
          }}
        >
          Try again
        </button>
      </main>
    );
  }
  if (phase.kind === 'ended') return <SessionEnded why={phase.why} />;
  return <Portal session={phase.session} onSessionEnd={onSessionEnd} />;
}

function Portal({ session, onSessionEnd }: { session: PortalSession; onSessionEnd: () => void }) {
  const { portal, scopes } = session;
  const logo = safeLogoUrl(portal.logoUrl);
  const support = safeLinkUrl(portal.supportUrl);
  const back = safeLinkUrl(session.returnUrl);
  const [logoFailed, setLogoFailed] = useState(false);
  const may = (scope: string) => scopes.includes(scope);
  const [keysVersion, setKeysVersion] = useState(0);

  return (
    <div className="portal" style={accentVariables(safeColour(portal.primaryColor))}>
      <header className="brand-bar">
        <div className="brand">
          {logo && !logoFailed ? (
            <img src={logo} alt="" className="logo" referrerPolicy="no-referrer" onError={() => setLogoFailed(true)} />
          ) : null}
          <span className="provider">{portal.displayName}</span>
        </div>
        {back ? (
          <a className="back" href={back}>
            Back to {portal.displayName}
          </a>
        ) : null}
      </header>
      <main className="content">
        <h1>API keys</h1>
        <p className="lead">
          The keys your account uses to call {portal.displayName}&rsquo;s API. Keep them secret: anyone with a key can
          act as you.
        </p>
        {may('keys:read') ? (
          <KeysPanel may={may} onSessionEnd={onSessionEnd} onChange={() => setKeysVersion((version) => version + 1)} />
        ) : null}
        {may('analytics:read') ? (
          <UsagePanel onSessionEnd={onSessionEnd} keysVersion={keysVersion} withKeys={may('keys:read')} />
        ) : null}
        {!may('keys:read') && !may('analytics:read') ? (
          <p>This page shows nothing to you yet. Ask {portal.displayName} for access to your API keys.</p>
        ) : null}
      </main>
      <footer className="footer">
        {support ? (
          <a href={support} rel="noopener">
            Help from {portal.displayName}
          </a>
        ) : null}
        <span>Keys managed with Keyplane</span>
      </footer>
    </div>
  );
}

/** The session is over or the link was refused: say so, and lead back to the provider when we know how. */
function SessionEnded({ why }: { why: 'expired' | 'link' }) {
  const { displayName, returnUrl, primaryColor } = remembered();
  const provider = displayName ?? 'the site that sent you here';
  return (
    <main className="centred ended" style={accentVariables(primaryColor)}>
      <h1>{why === 'link' ? 'This link no longer works' : 'Your session has ended'}</h1>
      <p>
        {why === 'link'
          ? 'Links to this page work once and only for a few minutes.'
          : 'For your security, this page signs you out after a while.'}{' '}
        To see your API keys again, go back to {provider} and open them from there.
      </p>
      {returnUrl ? (
        <a className="button primary" href={returnUrl}>
          Back to {displayName ?? 'the site'}
        </a>
      ) : null}
    </main>
  );
}
