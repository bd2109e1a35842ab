import { type ReactNode, useEffect, useId, useRef, useState } from 'react';

interface DialogProps {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ReactNode;
}

/**
 * A modal dialog on the browser's own `<dialog>`: it keeps focus inside, closes on Escape and
 * gives focus back to what opened it. Its content is mounted only while open, so what was typed
 * or shown (a new key) is gone the next time.
 */
export function Dialog({ title, open, onClose, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={onClose}>
      {open ? (
        <>
          <h2 id={titleId}>{title}</h2>
          {children}
        </>
      ) : null}
    </dialog>
  );
}

/** A secret shown once: read-only, selectable, with a copy button that says when it copied. */
export function SecretField({ label, value }: { label: string; value: string }) {
  const id = useId();
  const [copied, setCopied] = useState<'copied' | 'failed' | undefined>();
  const copy = () => {
    navigator.clipboard.writeText(value).then(
      () => setCopied('copied'),
      () => setCopied('failed'),
    );
  };
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="secret">
        <input
          id={id}
          readOnly
          value={value}
          spellCheck={false}
          autoComplete="off"
          onFocus={(event) => event.target.select()}
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p role="status" className="hint">
        {copied === 'copied' ? 'Copied.' : copied === 'failed' ? 'Could not copy: select the key and copy it.' : null}
      </p>
    </div>
  );
}
