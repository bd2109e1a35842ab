import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Check, Plus } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { useMissingPermission } from '../access.ts';
import { verificationsQueryOptions } from '../analytics.ts';
import { CodeSnippets, createKeySnippets, verifySnippets } from '../components/CodeSnippets.tsx';
import { PermittedButton } from '../components/PermittedButton.tsx';
import { SingleFieldCreateDialog } from '../components/SingleFieldCreateDialog.tsx';
import { formatCount } from '../format.ts';
import { Link, navigate } from '../router.tsx';
import { trpc } from '../trpc.ts';
import { bucketStarts, toCount } from '../usageQueries.ts';
import { useDocumentTitle } from '../useDocumentTitle.ts';
import { CreateKeyDialog } from './CreateKeyDialog.tsx';

export function GettingStarted() {
  useDocumentTitle('Get started');
  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Get started</h1>
      </div>
      <p className="page-intro">
        Keyplane issues the API keys your customers send to your API, and answers your API when it asks whether a key is
        valid: with its limits, credits and permissions enforced. Three steps take you from nothing to a verified key.
      </p>
      <FirstRunGuide />
    </>
  );
}

function Step({
  number,
  done,
  title,
  children,
}: {
  number: number;
  done: boolean;
  title: string;
  children: ReactNode;
}) {
  return (
    <li className="step" data-done={done}>
      <span className="step-number" aria-hidden="true">
        {done ? <Check size={14} /> : number}
      </span>
      <div className="min-w-0">
        <h3>
          {title}
          {done ? <span className="visually-hidden"> (done)</span> : null}
        </h3>
        {children}
      </div>
    </li>
  );
}

/**
 * The first run, step by step: an API, a key in it, and verifying that key from a backend, with
 * the code to do it filled in with this server's address and the workspace's own ids. Each step
 * shows done once the workspace has it.
 */
export function FirstRunGuide() {
  const queryClient = useQueryClient();
  const apis = useQuery(trpc.apis.listApis.queryOptions({ limit: 1 }));
  const api = apis.data?.data[0];
  const readKeyMissing = useMissingPermission({
    resourceType: 'api',
    resourceId: api?.id ?? '*',
    action: 'read_key',
  });
  const keys = useQuery({
    ...trpc.apis.listKeysPage.queryOptions({ apiId: api?.id ?? '', pageSize: 1 }),
    enabled: api !== undefined && readKeyMissing === undefined,
  });
  const analyticsMissing = useMissingPermission({
    resourceType: 'api',
    resourceId: api?.id ?? '*',
    action: 'read_analytics',
  });
  const [from] = useState(() => bucketStarts('month', Date.now())[0] ?? 0);
  const verified = useQuery({
    ...verificationsQueryOptions(`SELECT SUM(count) AS total FROM key_verifications_per_day_v1 WHERE time >= ${from}`),
    enabled: api !== undefined && analyticsMissing === undefined,
  });
  const [creatingApi, setCreatingApi] = useState(false);
  const [creatingKey, setCreatingKey] = useState(false);
  const keyCount = keys.data?.total ?? 0;
  const verifications = toCount(verified.data?.[0]?.total);

  return (
    <section className="panel" aria-labelledby="first-run-title">
      <h2 id="first-run-title">Get started with Keyplane</h2>
      <ol className="steps">
        <Step number={1} done={api !== undefined} title="Create an API">
          <p className="hint">An API groups the keys of one of your products, with their settings.</p>
          {api ? (
            <p>
              Done: <Link to={`/apis/${api.id}`}>{api.name}</Link> (<code>{api.id}</code>).
            </p>
          ) : (
            <PermittedButton
              permission={{ resourceType: 'api', resourceId: '*', action: 'create_api' }}
              className="primary"
              onClick={() => setCreatingApi(true)}
            >
              <Plus size={16} aria-hidden="true" />
              Create API
            </PermittedButton>
          )}
        </Step>
        <Step number={2} done={keyCount > 0} title="Create a key">
          <p className="hint">
            One key per customer: they send it with each request to your API. Create one here, or from your backend when
            a customer signs up.
          </p>
          {api ? (
            <>
              {keyCount > 0 ? (
                <p>
                  Done: {api.name} has <Link to={`/apis/${api.id}`}>{formatCount(keyCount, 'key')}</Link>.
                </p>
              ) : null}
              <div className="actions my-2">
                <PermittedButton
                  permission={{ resourceType: 'api', resourceId: api.id, action: 'create_key' }}
                  className={keyCount > 0 ? undefined : 'primary'}
                  onClick={() => setCreatingKey(true)}
                >
                  <Plus size={16} aria-hidden="true" />
                  Create a key in {api.name}
                </PermittedButton>
              </div>
              <details>
                <summary className="text-sm">From your backend</summary>
                <CodeSnippets label="Create a key in" snippets={createKeySnippets(api.id)} />
              </details>
            </>
          ) : (
            <p className="hint">After the API.</p>
          )}
        </Step>
        <Step number={3} done={verifications > 0} title="Verify it from your backend">
          <p className="hint">
            On each request, your API sends the caller’s key to Keyplane and lets the request through only when the
            answer is <code>valid</code>. It authenticates with a root key holding{' '}
            <code>api.{api?.id ?? '<apiId>'}.verify_key</code>, kept in <code>KEYPLANE_ROOT_KEY</code>: create one under{' '}
            <Link to="/root-keys">Root keys</Link>. Put the key your customer sent where it says <code>YOUR_KEY</code>:
            a key you create here comes with this code filled in.
          </p>
          {verifications > 0 ? (
            <p>
              Done: {formatCount(verifications, 'verification')} in the last 30 days.{' '}
              <Link to="/usage">See the usage</Link>.
            </p>
          ) : null}
          <CodeSnippets label="Verify a key in" snippets={verifySnippets()} />
        </Step>
      </ol>
      <SingleFieldCreateDialog
        title="Create API"
        open={creatingApi}
        onClose={() => setCreatingApi(false)}
        fieldId="guide-api-name"
        fieldLabel="API name"
        constraints={{ minLength: 3, maxLength: 255 }}
        mutationOptions={trpc.apis.createApi.mutationOptions()}
        toInput={(name) => ({ name })}
        onCreated={({ apiId }) => {
          void queryClient.invalidateQueries({ queryKey: trpc.apis.pathKey() });
          navigate(`/apis/${apiId}`);
        }}
      />
      {api ? <CreateKeyDialog apiId={api.id} open={creatingKey} onClose={() => setCreatingKey(false)} /> : null}
    </section>
  );
}
