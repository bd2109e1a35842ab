import { type InputHTMLAttributes, useId } from 'react';

interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onChange'> {
  label: string;
  value: string;
  onChange: (value: string) => void;
}

/** A labelled input of a form, the label tied to it; the other props are the input's own. */
export function TextField({ label, value, onChange, ...input }: TextFieldProps) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} {...input} value={value} onChange={(event) => onChange(event.target.value)} />
    </div>
  );
}
