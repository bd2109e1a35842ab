import { useId } from 'react';

export interface CreditsValues {
  /** Unlimited is a choice of its own, never an empty number field. */
  limited: boolean;
  remaining: string;
  refill: 'none' | 'daily' | 'monthly';
  refillAmount: string;
  /** Day of the month, for monthly refills. */
  refillDay: string;
}

interface StoredCredits {
  remaining: number | null;
  refill?: { interval: 'daily' | 'monthly'; amount: number; refillDay?: number | null };
}

/** A key's credits as the fields show them; no credits at all is unlimited. */
export function toCreditsValues(stored: StoredCredits | undefined): CreditsValues {
  const refill = stored?.refill;
  return {
    limited: stored !== undefined && stored.remaining !== null,
    remaining: stored?.remaining === null || stored === undefined ? '1000' : String(stored.remaining),
    refill: refill?.interval ?? 'none',
    refillAmount: refill ? String(refill.amount) : '1000',
    refillDay: String(refill?.refillDay ?? 1),
  };
}

/** The credits as createKey and updateKey take them: `remaining: null` is unlimited. */
export function toCreditsInput(values: CreditsValues) {
  if (!values.limited) return { remaining: null, refill: null };
  const refill =
    values.refill === 'none'
      ? null
      : {
          interval: values.refill,
          amount: Number(values.refillAmount),
          ...(values.refill === 'monthly' ? { refillDay: Number(values.refillDay) } : {}),
        };
  return { remaining: Number(values.remaining), refill };
}

/** The credits of a new key (keys.createKey, a portal's key policy): none at all is unlimited. */
export function toNewKeyCredits(values: CreditsValues) {
  if (!values.limited) return undefined;
  const { remaining, refill } = toCreditsInput(values);
  return { remaining, ...(refill ? { refill } : {}) };
}

interface CreditsFieldsProps {
  values: CreditsValues;
  onChange: (change: Partial<CreditsValues>) => void;
}

/** Unlimited, or a number of credits that each verification spends, optionally refilled. */
export function CreditsFields({ values, onChange }: CreditsFieldsProps) {
  const id = useId();
  return (
    <fieldset>
      <legend>Credits</legend>
      <label className="checkbox">
        <input
          type="radio"
          name={`${id}-mode`}
          checked={!values.limited}
          onChange={() => onChange({ limited: false })}
        />
        Unlimited
      </label>
      <label className="checkbox">
        <input type="radio" name={`${id}-mode`} checked={values.limited} onChange={() => onChange({ limited: true })} />
        Limited: each verification spends credits
      </label>
      {values.limited ? (
        <div className="inline-form">
          <div className="field">
            <label htmlFor={`${id}-remaining`}>Remaining credits</label>
            <input
              id={`${id}-remaining`}
              type="number"
              min={0}
              required
              value={values.remaining}
              onChange={(event) => onChange({ remaining: event.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-refill`}>Refill</label>
            <select
              id={`${id}-refill`}
              value={values.refill}
              onChange={(event) => onChange({ refill: event.target.value as CreditsValues['refill'] })}
            >
              <option value="none">Never</option>
              <option value="daily">Daily</option>
              <option value="monthly">Monthly</option>
            </select>
          </div>
          {values.refill === 'none' ? null : (
            <div className="field">
              <label htmlFor={`${id}-amount`}>Refill to</label>
              <input
                id={`${id}-amount`}
                type="number"
                min={1}
                required
                value={values.refillAmount}
                onChange={(event) => onChange({ refillAmount: event.target.value })}
              />
            </div>
          )}
          {values.refill === 'monthly' ? (
            <div className="field">
              <label htmlFor={`${id}-day`}>On day of the month</label>
              <input
                id={`${id}-day`}
                type="number"
                min={1}
                max={31}
                required
                value={values.refillDay}
                onChange={(event) => onChange({ refillDay: event.target.value })}
              />
            </div>
          ) : null}
        </div>
      ) : null}
    </fieldset>
  );
}
