import type { PermissionTuple } from '@keyplane/core/rules';
import { type ReactNode, useId } from 'react';
import { useMissingPermission } from '../access.ts';
import { ErrorMessage } from './ErrorMessage.tsx';

interface SaveActionsProps {
  /** The submit button's label, e.g. "Save roles". */
  label: string;
  /** The save. */
  mutation: { isPending: boolean; error: Error | null; isSuccess: boolean };
  /** The form's edits (useDraft): nothing to save or discard unless it is edited. */
  draft: { edited: boolean; discard: () => void };
  /** What the save needs: without it Save is disabled and the reason shows beside it. */
  permission?: PermissionTuple | readonly PermissionTuple[];
  /** The save error is shown elsewhere (a dialog open over the form). */
  hideError?: boolean;
  /** What the announcement says once saved; "Saved." unless the save says more. */
  savedMessage?: string;
  /** More buttons for the row. */
  children?: ReactNode;
}

/** The end of an edit form: the save error, Save and Discard, and a "Saved." announcement. */
export function SaveActions({
  label,
  mutation,
  draft,
  permission = [],
  hideError = false,
  savedMessage = 'Saved.',
  children,
}: SaveActionsProps) {
  const { isPending: pending, error } = mutation;
  const { edited } = draft;
  const missing = useMissingPermission(permission);
  const reasonId = useId();
  return (
    <>
      {error && !hideError ? <ErrorMessage error={error} /> : null}
      <div className="actions">
        <button
          type="submit"
          className="primary"
          disabled={pending || !edited || missing !== undefined}
          aria-describedby={missing ? reasonId : undefined}
        >
          {pending ? 'Saving…' : label}
        </button>
        <button type="button" onClick={draft.discard} disabled={pending || !edited}>
          Discard changes
        </button>
        {children}
        {missing ? (
          <span id={reasonId} className="hint">
            {missing}
          </span>
        ) : null}
        <span role="status">{mutation.isSuccess && !edited ? savedMessage : null}</span>
      </div>
    </>
  );
}
