import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { trpc } from '../trpc.ts';

type Operation = 'set' | 'increment' | 'decrement';

/** Sets, adds or takes credits; setting an empty value makes the key unlimited. */
export function KeyCreditsForm({ keyId, onSaved }: { keyId: string; onSaved: () => void }) {
  const [operation, setOperation] = useState<Operation>('increment');
  const [value, setValue] = useState('');
  const update = useMutation(
    trpc.keys.updateCredits.mutationOptions({
      onSuccess: () => {
        setValue('');
        onSaved();
      },
    }),
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ keyId, operation, value: value === '' ? null : Number(value) });
  };

  return (
    <form onSubmit={submit} className="inline-form">
      <div className="field">
        <label htmlFor="credits-operation">Change</label>
        <select
          id="credits-operation"
          value={operation}
          onChange={(event) => setOperation(event.target.value as Operation)}
        >
          <option value="increment">Add</option>
          <option value="decrement">Take away</option>
          <option value="set">Set to</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="credits-value">Credits</label>
        <input
          id="credits-value"
          type="number"
          min={0}
          required={operation !== 'set'}
          placeholder={operation === 'set' ? 'Empty: unlimited' : undefined}
          value={value}
          onChange={(event) => setValue(event.target.value)}
        />
      </div>
      <button type="submit" disabled={update.isPending}>
        Update credits
      </button>
      {update.error ? <ErrorMessage error={update.error} /> : null}
    </form>
  );
}
