import { createdKeyPrefix, rerolledKeyPrefix } from '@keyplane/core/rules';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { FormDialog } from '../components/FormDialog.tsx';
import { type RouterOutputs, trpc } from '../trpc.ts';

interface RerollKeyDialogProps {
  keyId: string;
  apiId: string;
  /** The key's first characters, which show the prefix it was made with. */
  keyStart: string;
  onClose: () => void;
  onRerolled: (created: RouterOutputs['keys']['rerollKey']) => void;
}

const GRACE_PERIODS = [
  { label: 'Now', ms: 0 },
  { label: 'In 1 hour', ms: 3_600_000 },
  { label: 'In 24 hours', ms: 86_400_000 },
  { label: 'In 7 days', ms: 604_800_000 },
];

/** Long enough for most deployments to pick up a new key, short enough that a leaked one soon stops. */
const SAFE_GRACE_PERIOD = 86_400_000;

/** A new key with the same settings; the old one expires after the chosen grace period. */
export function RerollKeyDialog({ keyId, apiId, keyStart, onClose, onRerolled }: RerollKeyDialogProps) {
  const [expiration, setExpiration] = useState(SAFE_GRACE_PERIOD);
  const api = useQuery(trpc.apis.getApi.queryOptions({ apiId }));
  const createdWith = createdKeyPrefix(keyStart);
  // The server's rule (docs/contract.md, Rerolling keys), applied here to say what the new key will look like.
  const rerolledWith = api.data ? rerolledKeyPrefix(keyStart, api.data.defaultPrefix) : createdWith;
  const reroll = useMutation(trpc.keys.rerollKey.mutationOptions({ onSuccess: onRerolled }));

  const submit = () => {
    reroll.mutate({ keyId, expiration });
  };

  return (
    <FormDialog title="Reroll key" open onClose={onClose} onSubmit={submit} submitLabel="Reroll" mutation={reroll}>
      <div className="field">
        <label htmlFor="reroll-expiration">The old key stops working</label>
        <select
          id="reroll-expiration"
          value={expiration}
          onChange={(event) => setExpiration(Number(event.target.value))}
          aria-describedby="reroll-expiration-hint"
        >
          {GRACE_PERIODS.map((period) => (
            <option key={period.ms} value={period.ms}>
              {period.label}
            </option>
          ))}
        </select>
        <p id="reroll-expiration-hint" className="hint">
          The grace period: a new key with the same settings is made now, and until the time chosen both keys verify, so
          your customer can swap the key without downtime. “Now” cuts the old key off at once: do that only when it
          leaked.
        </p>
      </div>
      {expiration === 0 ? (
        <p className="warning" role="note">
          Requests with the old key fail from the moment you reroll, before anyone has the new one.
        </p>
      ) : null}
      {rerolledWith !== createdWith ? (
        <p className="warning" role="note">
          The new key will start {rerolledWith ? <code>{rerolledWith}_</code> : 'without a prefix'}, not{' '}
          {createdWith ? <code>{createdWith}_</code> : 'without one'} as this key does: a rerolled key keeps the part of
          its prefix before the first underscore, else takes the API's default prefix. If your code checks the prefix,
          create a new key with the one you need instead.
        </p>
      ) : null}
    </FormDialog>
  );
}
