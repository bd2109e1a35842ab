import type { ReactNode } from 'react';
import { ErrorMessage } from './ErrorMessage.tsx';

interface SaveActionsProps {
  /** The submit button's label, e.g. "Save roles". */
  label: string;
  /** The save. */
  mutation: { isPending: boolean; error: Error | null; isSuccess: boolean };
  /** The form's edits (useDraft): nothing to save or discard unless it is edited. */
  draft: { edited: boolean; discard: () => void };
  /** The save error is shown elsewhere (a dialog open over the form). */
  hideError?: boolean;
  /** More buttons for the row. */
  children?: ReactNode;
}

/** The end of an edit form: the save error, Save and Discard, and a "Saved." announcement. */
export function SaveActions({ label, mutation, draft, hideError = false, children }: SaveActionsProps) {
  const { isPending: pending, error } = mutation;
  const { edited } = draft;
  return (
    <>
      {error && !hideError ? <ErrorMessage error={error} /> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={pending || !edited}>
          {pending ? 'Saving…' : label}
        </button>
        <button type="button" onClick={draft.discard} disabled={pending || !edited}>
          Discard changes
        </button>
        {children}
        <span role="status">{mutation.isSuccess && !edited ? 'Saved.' : null}</span>
      </div>
    </>
  );
}
