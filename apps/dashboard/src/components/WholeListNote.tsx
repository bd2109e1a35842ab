import { WHOLE_LIST_MAX_ROWS } from '../useWholeList.ts';

/** Says when a list holds more rows than the screen loads (useWholeList): search narrows it. */
export function WholeListNote({
  complete,
  noun,
  max = WHOLE_LIST_MAX_ROWS,
  narrow = 'Search to narrow the list.',
}: {
  complete: boolean | undefined;
  noun: string;
  max?: number;
  narrow?: string;
}) {
  if (complete !== false) return null;
  return (
    <p className="hint">
      Only the first {max} {noun} are listed, sorted and counted here. {narrow}
    </p>
  );
}
