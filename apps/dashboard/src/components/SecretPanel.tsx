import { Check, Copy, ShieldAlert } from 'lucide-react';
import { type ReactNode, useState } from 'react';

interface SecretPanelProps {
  title: string;
  secret: string;
  onDismiss: () => void;
  /** The dismiss button's text; "Done" unless dismissing does more (opens what was created). */
  doneLabel?: string;
  /** What the secret is, in the instructions: "key" unless it is another kind, such as a signing secret. */
  noun?: string;
  /** More to say or show with the secret, such as how to use it. */
  extra?: ReactNode;
}

/** A new key or secret, shown once: dismissing the panel drops it from memory for good. */
export function SecretPanel({ title, secret, onDismiss, doneLabel = 'Done', noun = 'key', extra }: SecretPanelProps) {
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
      <p className="flex items-center gap-2">
        <ShieldAlert size={16} aria-hidden="true" className="text-warning" />
        <strong>Copy this {noun} now. You will not see it again.</strong>
      </p>
      <code className="secret" data-testid="new-secret">
        {secret}
      </code>
      <div className="actions">
        <button type="button" className="primary" onClick={copy}>
          {copyState === 'copied' ? <Check size={16} aria-hidden="true" /> : <Copy size={16} aria-hidden="true" />}
          Copy {noun}
        </button>
        <button type="button" onClick={onDismiss}>
          {doneLabel}
        </button>
        <span role="status" aria-live="polite" className="text-sm">
          {copyState === 'copied' ? 'Copied to the clipboard.' : null}
          {copyState === 'failed' ? `Copying failed: select the ${noun} and copy it by hand.` : null}
        </span>
      </div>
      {extra}
    </section>
  );
}
