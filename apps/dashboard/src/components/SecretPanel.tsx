import { useState } from 'react';

interface SecretPanelProps {
  title: string;
  secret: string;
  onDismiss: () => void;
}

/** A new key, shown once: dismissing the panel drops it from memory for good. */
export function SecretPanel({ title, secret, onDismiss }: SecretPanelProps) {
  const [copyState, setCopyState] = useState<'idle' | 'copied' | 'failed'>('idle');

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopyState('copied');
    } catch {
      setCopyState('failed');
    }
  };

  return (
    <section className="secret-panel" aria-labelledby="secret-panel-title">
      <h2 id="secret-panel-title">{title}</h2>
      <p>
        <strong>Copy this key now. You will not see it again.</strong>
      </p>
      <code className="secret" data-testid="new-secret">
        {secret}
      </code>
      <div className="actions">
        <button type="button" onClick={copy}>
          Copy key
        </button>
        <button type="button" onClick={onDismiss}>
          Done
        </button>
        <span role="status" aria-live="polite">
          {copyState === 'copied' ? 'Copied to the clipboard.' : null}
          {copyState === 'failed' ? 'Copying failed: select the key and copy it by hand.' : null}
        </span>
      </div>
    </section>
  );
}
