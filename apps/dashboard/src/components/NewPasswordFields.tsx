import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '@keyplane/core/rules';
import { useId } from 'react';

interface NewPasswordFieldsProps {
  password: string;
  confirmation: string;
  onPasswordChange: (value: string) => void;
  onConfirmationChange: (value: string) => void;
  /** The first field's label: "Password", or "New password" where an old one is asked too. */
  label?: string;
}

/** The rule a new password must pass, as the server checks it (packages/core/src/team/passwords.ts). */
export const PASSWORD_POLICY = `At least ${MIN_PASSWORD_LENGTH} characters, and not one of the most commonly used passwords. A passphrase of a few words works well.`;

/** Whether the two fields agree (the form's submit waits for it). */
export const passwordsMatch = (password: string, confirmation: string) => password === confirmation;

/**
 * A new password and its confirmation, with the policy stated before anything is typed and a
 * mismatch said under the second field as soon as it shows.
 */
export function NewPasswordFields({
  password,
  confirmation,
  onPasswordChange,
  onConfirmationChange,
  label = 'Password',
}: NewPasswordFieldsProps) {
  const id = useId();
  const mismatch = confirmation.length > 0 && !passwordsMatch(password, confirmation);
  return (
    <>
      <div className="field">
        <label htmlFor={`${id}-password`}>{label}</label>
        <input
          id={`${id}-password`}
          type="password"
          autoComplete="new-password"
          required
          minLength={MIN_PASSWORD_LENGTH}
          maxLength={MAX_PASSWORD_LENGTH}
          value={password}
          onChange={(event) => onPasswordChange(event.target.value)}
          aria-describedby={`${id}-policy`}
        />
        <p id={`${id}-policy`} className="hint">
          {PASSWORD_POLICY}
        </p>
      </div>
      <div className="field">
        <label htmlFor={`${id}-confirm`}>Confirm {label.toLowerCase()}</label>
        <input
          id={`${id}-confirm`}
          type="password"
          autoComplete="new-password"
          required
          value={confirmation}
          onChange={(event) => onConfirmationChange(event.target.value)}
          aria-invalid={mismatch || undefined}
          aria-describedby={mismatch ? `${id}-mismatch` : undefined}
        />
        {mismatch ? (
          <p id={`${id}-mismatch`} className="field-error">
            The two passwords differ.
          </p>
        ) : null}
      </div>
    </>
  );
}
