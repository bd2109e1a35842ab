import { WHOLE_LIST_MAX_ROWS } from '../useWholeList.ts';

/** Says when a list holds more rows than the screen loads (useWholeList): search narrows it. */
export function WholeListNote({ complete, noun }: { complete: boolean | undefined; noun: string }) {
  if (complete !== false) return null;
  return (
    <p className="hint">
      Only the first {WHOLE_LIST_MAX_ROWS} {noun} are listed, sorted and counted here. Search to narrow the list.
    </p>
  );
}
