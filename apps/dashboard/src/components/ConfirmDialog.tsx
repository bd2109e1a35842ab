import { type ReactNode, useId, useState } from 'react';
import { Dialog } from './Dialog.tsx';
import { ErrorMessage } from './ErrorMessage.tsx';

interface ConfirmDialogProps {
  title: string;
  open: boolean;
  /** What will happen, in words. */
  children: ReactNode;
  confirmLabel: string;
  pending: boolean;
  error: Error | null;
  onConfirm: () => void;
  onClose: () => void;
  /** For what cannot be undone and takes much with it: the user types this (a name) before confirming. */
  typeToConfirm?: string;
}

/** Asks before a destructive action; the action's error stays in the dialog. */
export function ConfirmDialog({ open, onClose, ...props }: ConfirmDialogProps) {
  return (
    <Dialog title={props.title} open={open} onClose={onClose}>
      {/* The dialog mounts its content only while open: what was typed is gone the next time. */}
      <ConfirmBody onClose={onClose} {...props} />
    </Dialog>
  );
}

function ConfirmBody({
  children,
  confirmLabel,
  pending,
  error,
  onConfirm,
  onClose,
  typeToConfirm,
}: Omit<ConfirmDialogProps, 'open' | 'title'>) {
  const [typed, setTyped] = useState('');
  const typedId = useId();
  const confirmed = typeToConfirm === undefined || typed.trim() === typeToConfirm;
  return (
    <>
      <div className="dialog-body">
        <div>{children}</div>
        {typeToConfirm === undefined ? null : (
          <div className="field">
            <label htmlFor={typedId}>
              Type <strong>{typeToConfirm}</strong> to confirm
            </label>
            <input
              id={typedId}
              autoComplete="off"
              spellCheck={false}
              value={typed}
              onChange={(event) => setTyped(event.target.value)}
            />
          </div>
        )}
        {error ? <ErrorMessage error={error} /> : null}
      </div>
      <div className="dialog-footer">
        <button type="button" onClick={onClose} data-autofocus={typeToConfirm === undefined ? true : undefined}>
          Cancel
        </button>
        <button type="button" className="danger solid" onClick={onConfirm} disabled={pending || !confirmed}>
          {pending ? 'Working…' : confirmLabel}
        </button>
      </div>
    </>
  );
}
