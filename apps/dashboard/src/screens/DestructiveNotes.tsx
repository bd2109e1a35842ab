import { useQuery } from '@tanstack/react-query';
import { sessionQueryOptions, useMissingPermission } from '../access.ts';
import { formatCount } from '../format.ts';
import { trpc } from '../trpc.ts';

/** How many keys deleting an API takes with it (when the root key may read them). */
export function KeysDeletedWithApi({ apiId }: { apiId: string }) {
  const readMissing = useMissingPermission({ resourceType: 'api', resourceId: apiId, action: 'read_key' });
  const keys = useQuery({
    ...trpc.apis.listKeysPage.queryOptions({ apiId, pageSize: 1 }, { staleTime: 0 }),
    enabled: readMissing === undefined,
  });
  if (keys.data === undefined) {
    return <p>{keys.isPending && !readMissing ? 'Counting its keys…' : 'All of its keys are deleted with it.'}</p>;
  }
  return (
    <p className="warning" role="note">
      {keys.data.total === 0 ? (
        'It has no keys.'
      ) : (
        <>
          <strong>{formatCount(keys.data.total, 'key')}</strong> {keys.data.total === 1 ? 'is' : 'are'} deleted with it
          and stop verifying at once.
        </>
      )}
    </p>
  );
}

/** Revoking the root key of this very session signs the user out: say so before it happens. */
export function RevokingEndsSession({ rootKeyId }: { rootKeyId: string }) {
  const session = useQuery(sessionQueryOptions);
  if (session.data?.rootKeyId !== rootKeyId) return null;
  return (
    <p className="warning" role="note">
      <strong>You are signed in with this root key.</strong> Revoking it ends your session at once: you will need
      another root key to sign in again.
    </p>
  );
}
