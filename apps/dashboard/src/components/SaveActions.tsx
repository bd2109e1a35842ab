import type { ReactNode } from 'react';
import { ErrorMessage } from './ErrorMessage.tsx';

interface SaveActionsProps {
  /** The submit button's label, e.g. "Save roles". */
  label: string;
  pending: boolean;
  error: Error | null;
  /** Whether the form differs from what is saved: nothing to save or discard otherwise. */
  edited: boolean;
  /** The last save succeeded. */
  saved: boolean;
  onDiscard: () => void;
  /** More buttons for the row. */
  children?: ReactNode;
}

/** The end of an edit form: the save error, Save and Discard, and a "Saved." announcement. */
export function SaveActions({ label, pending, error, edited, saved, onDiscard, children }: SaveActionsProps) {
  return (
    <>
      {error ? <ErrorMessage error={error} /> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={pending || !edited}>
          {pending ? 'Saving…' : label}
        </button>
        <button type="button" onClick={onDiscard} disabled={pending || !edited}>
          Discard changes
        </button>
        {children}
        <span role="status">{saved && !edited ? 'Saved.' : null}</span>
      </div>
    </>
  );
}
