import { Check, Copy } from 'lucide-react';
import { useEffect, useState } from 'react';

/** How long the check mark shows before the button offers to copy again. */
const CONFIRMATION_MS = 1500;

/**
 * A small icon button (28 px, above the 24 px minimum target) copying `value` to the clipboard; a
 * check mark and "Copied" (to screen readers too) say it worked. `label` names what it copies.
 */
export function CopyButton({ value, label = value }: { value: string; label?: string }) {
  const [outcome, setOutcome] = useState<'copied' | 'failed' | undefined>();
  useEffect(() => {
    if (!outcome) return;
    const timer = setTimeout(() => setOutcome(undefined), CONFIRMATION_MS);
    return () => clearTimeout(timer);
  }, [outcome]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setOutcome('copied');
    } catch {
      // No clipboard outside a secure context (plain http to a remote host), or permission denied.
      setOutcome('failed');
    }
  };
  const word = outcome === 'copied' ? 'Copied' : outcome === 'failed' ? 'Copy failed' : 'Copy';
  return (
    <>
      <button type="button" className="copy" aria-label={`Copy ${label}`} title={word} onClick={() => void copy()}>
        {outcome === 'copied' ? <Check size={14} aria-hidden="true" /> : <Copy size={14} aria-hidden="true" />}
        <span className="visually-hidden">{word}</span>
      </button>
      <span className="visually-hidden" role="status">
        {outcome === 'copied' ? 'Copied' : outcome === 'failed' ? 'Could not copy: select the text and copy it.' : ''}
      </span>
    </>
  );
}

/** How many last characters of an id stay visible when a wide table shortens it: ids of one kind share their start. */
const ID_TAIL = 6;

/** An id with its copy button. A wide table shows its start and end (styles.css). */
export function CopyableId({ id }: { id: string }) {
  return (
    <span className="copyable-id">
      <code title={id}>
        <span className="id-head">{id.slice(0, -ID_TAIL)}</span>
        {id.slice(-ID_TAIL)}
      </code>
      <CopyButton value={id} />
    </span>
  );
}
