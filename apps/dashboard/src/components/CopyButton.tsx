import { useEffect, useState } from 'react';

/** How long "Copied" shows before the button reads "Copy" again. */
const CONFIRMATION_MS = 1500;

/** A small button copying `value` (an id) to the clipboard, saying "Copied" for a moment. */
export function CopyButton({ value }: { value: string }) {
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
  return (
    <>
      <button type="button" className="copy" aria-label={`Copy ${value}`} onClick={() => void copy()}>
        {outcome === 'copied' ? 'Copied' : outcome === 'failed' ? 'Copy failed' : 'Copy'}
      </button>
      <span className="visually-hidden" role="status">
        {outcome === 'copied' ? 'Copied' : outcome === 'failed' ? 'Could not copy: select the id and copy it.' : ''}
      </span>
    </>
  );
}

/** How many last characters of an id stay visible when a wide table shortens it: ids of one kind share their start. */
const ID_TAIL = 6;

/** An id in a table cell, with its copy button. A wide table shows its start and end (styles.css). */
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
