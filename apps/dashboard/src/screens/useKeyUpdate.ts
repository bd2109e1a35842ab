import { useMutation } from '@tanstack/react-query';
import { trpc } from '../trpc.ts';

/** keys.updateKey for one of the key's forms: once saved, the key is read again, then `afterSave` resets the form. */
export function useKeyUpdate(onSaved: () => Promise<unknown>, afterSave: () => void) {
  return useMutation(
    trpc.keys.updateKey.mutationOptions({
      onSuccess: async () => {
        await onSaved();
        afterSave();
      },
    }),
  );
}
