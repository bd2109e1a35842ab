import { type UseMutationOptions, useMutation } from '@tanstack/react-query';
import { type InputHTMLAttributes, useState } from 'react';
import { FormDialog } from './FormDialog.tsx';

interface SingleFieldCreateDialogProps<TCreated, TInput> {
  title: string;
  open: boolean;
  onClose: () => void;
  fieldId: string;
  fieldLabel: string;
  /** The field's checks, besides being required. */
  constraints: Pick<InputHTMLAttributes<HTMLInputElement>, 'minLength' | 'maxLength' | 'pattern'>;
  mutationOptions: UseMutationOptions<TCreated, Error, TInput>;
  /** The mutation's input for the trimmed text. */
  toInput: (text: string) => TInput;
  /** After the dialog has closed. */
  onCreated: (created: TCreated) => void;
}

/** Creates a thing from one required text field: an API from its name, an identity from its external id. */
export function SingleFieldCreateDialog<TCreated, TInput>({
  title,
  open,
  onClose,
  fieldId,
  fieldLabel,
  constraints,
  mutationOptions,
  toInput,
  onCreated,
}: SingleFieldCreateDialogProps<TCreated, TInput>) {
  const [text, setText] = useState('');
  const create = useMutation(mutationOptions);

  const close = () => {
    setText('');
    create.reset();
    onClose();
  };

  const submit = () => {
    create.mutate(toInput(text.trim()), {
      onSuccess: (created) => {
        close();
        onCreated(created);
      },
    });
  };

  return (
    <FormDialog title={title} open={open} onClose={close} onSubmit={submit} submitLabel="Create" mutation={create}>
      <div className="field">
        <label htmlFor={fieldId}>{fieldLabel}</label>
        <input id={fieldId} required {...constraints} value={text} onChange={(event) => setText(event.target.value)} />
      </div>
    </FormDialog>
  );
}
