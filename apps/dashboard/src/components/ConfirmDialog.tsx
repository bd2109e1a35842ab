import type { ReactNode } from 'react';
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
}

/** Asks before a destructive action; the action's error stays in the dialog. */
export function ConfirmDialog({
  title,
  open,
  children,
  confirmLabel,
  pending,
  error,
  onConfirm,
  onClose,
}: ConfirmDialogProps) {
  return (
    <Dialog title={title} open={open} onClose={onClose}>
      <div className="dialog-body">{children}</div>
      {error ? <ErrorMessage error={error} /> : null}
      <div className="actions">
        <button type="button" onClick={onClose} data-autofocus>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={pending}>
          {pending ? 'Working…' : confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
