import type { PermissionTuple } from '@keyplane/core/rules';
import { type FormEvent, type ReactNode, useId } from 'react';
import { useMissingPermission } from '../access.ts';
import { Dialog } from './Dialog.tsx';
import { ErrorMessage } from './ErrorMessage.tsx';

interface FormDialogProps {
  title: string;
  open: boolean;
  /** Cancel and Escape. */
  onClose: () => void;
  /** The form passed the browser's own checks. */
  onSubmit: () => void;
  /** The submit button's text, e.g. "Create". */
  submitLabel: string;
  /** The submit's mutation: its pending state disables the button, its error shows above the footer. */
  mutation: { isPending: boolean; error: Error | null };
  /** The form lacks something the browser's own checks cannot see. */
  incomplete?: boolean;
  /** What the submit needs: without it the submit is disabled and the reason shows beside it. */
  permission?: PermissionTuple | readonly PermissionTuple[];
  /** Room for wide fields, such as the root-key permission picker. */
  wide?: boolean;
  /** More buttons, between Cancel and submit. */
  actions?: ReactNode;
  /** The error is shown by a field (the one it names) rather than above the footer. */
  errorShownAtField?: boolean;
  /** The fields. */
  children: ReactNode;
}

/**
 * A dialog holding one form: the fields scroll, the footer (the reason a submit is disabled, Cancel
 * and the submit button) stays in view, and the submit error shows just above it.
 */
export function FormDialog({
  title,
  open,
  onClose,
  onSubmit,
  submitLabel,
  mutation,
  incomplete,
  permission = [],
  wide,
  actions,
  errorShownAtField,
  children,
}: FormDialogProps) {
  const missing = useMissingPermission(permission);
  const reasonId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };

  return (
    <Dialog title={title} open={open} onClose={onClose} wide={wide}>
      <form onSubmit={submit} noValidate={false}>
        <div className="dialog-body">
          {children}
          {mutation.error && !errorShownAtField ? <ErrorMessage error={mutation.error} /> : null}
        </div>
        <div className="dialog-footer">
          {missing ? (
            <p id={reasonId} className="hint footer-note">
              {missing}
            </p>
          ) : null}
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          {actions}
          <button
            type="submit"
            className="primary"
            disabled={mutation.isPending || incomplete || missing !== undefined}
            aria-describedby={missing ? reasonId : undefined}
          >
            {submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
