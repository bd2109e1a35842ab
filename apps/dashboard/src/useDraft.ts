import { useState } from 'react';

/**
 * A form's values: the saved ones until the user edits, then the user's own. Refetches never
 * overwrite an edit in progress; `discard` (after a save, or to cancel) follows the saved values again.
 */
export function useDraft<TValues extends object>(saved: TValues) {
  const [draft, setDraft] = useState<TValues | null>(null);
  return {
    values: draft ?? saved,
    edited: draft !== null,
    edit: (change: Partial<TValues>) => setDraft((current) => ({ ...(current ?? saved), ...change })),
    discard: () => setDraft(null),
  };
}
