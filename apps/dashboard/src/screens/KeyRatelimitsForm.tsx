import type { FormEvent } from 'react';
import { RatelimitsEditor, toRatelimitRows } from '../components/RatelimitsEditor.tsx';
import { SaveActions } from '../components/SaveActions.tsx';
import type { RouterOutputs } from '../trpc.ts';
import { useDraft } from '../useDraft.ts';
import { useKeyUpdate } from './useKeyUpdate.ts';

interface KeyRatelimitsFormProps {
  keyData: RouterOutputs['keys']['getKey'];
  onSaved: () => Promise<unknown>;
}

/** The key's own limits; saving replaces them all (updateKey keeps the ids of limits whose name stays). */
export function KeyRatelimitsForm({ keyData, onSaved }: KeyRatelimitsFormProps) {
  const draft = useDraft({
    rows: toRatelimitRows(keyData.ratelimits),
  });
  const update = useKeyUpdate(onSaved, draft.discard);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ keyId: keyData.keyId, ratelimits: draft.values.rows });
  };

  return (
    <form onSubmit={submit} className="stack">
      <RatelimitsEditor rows={draft.values.rows} onChange={(rows) => draft.edit({ rows })} />
      <SaveActions label="Save rate limits" mutation={update} draft={draft} />
    </form>
  );
}
