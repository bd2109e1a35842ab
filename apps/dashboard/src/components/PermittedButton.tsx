import type { PermissionTuple } from '@keyplane/core/rules';
import { type ButtonHTMLAttributes, useId } from 'react';
import { useMissingPermission, useReadOnly } from '../access.ts';

interface PermittedButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  /** What the button's action needs (all of them): without it the button is disabled and says why. */
  permission: PermissionTuple | readonly PermissionTuple[];
}

/**
 * A button for an action the signed-in root key or person may lack; the reason shows beside it.
 * A session that may change nothing (a viewer's) is not offered the button at all.
 */
export function PermittedButton({ permission, disabled, ...props }: PermittedButtonProps) {
  const missing = useMissingPermission(permission);
  const readOnly = useReadOnly();
  const reasonId = useId();
  if (missing && readOnly) return null;
  const button = (
    <button
      type="button"
      {...props}
      disabled={disabled || missing !== undefined}
      aria-describedby={missing ? reasonId : undefined}
    />
  );
  if (!missing) return button;
  return (
    <span className="permitted">
      {button}
      <span id={reasonId} className="hint">
        {missing}
      </span>
    </span>
  );
}
