import type { Api } from './harness.ts';
import type { InputOf, OutputOf, ProcedurePath } from './procedures.ts';

/** An internal procedure's answer over `/trpc`, as the dashboard and the typed client see it. */
export interface InternalReply<TData> {
  status: number;
  data: TData;
  error?: {
    message: string;
    data: { code: string; httpStatus: number; type: string | null; requestId: string | null };
  };
  setCookie: string[];
  headers: Headers;
}

export type Caller = { rootKey: string } | { session: string } | { headers: Record<string, string> };

/** Calls a procedure at `/trpc` with an input of its type; its answer's data typed by the router. */
export function callProcedure<P extends ProcedurePath>(
  api: Pick<Api, 'fetch'>,
  procedure: P,
  input: InputOf<P>,
  caller: Caller,
): Promise<InternalReply<OutputOf<P>>> {
  return callInternal<OutputOf<P>>(api, procedure, input, caller);
}

/**
 * Calls a procedure at `/trpc` (POST, which tRPC's method override accepts for queries too) as a
 * root key holder, as a signed-in dashboard (cookie and the dashboard header), or with raw headers.
 * Untyped: for inputs a procedure does not take; everything else uses `callProcedure`.
 */
export async function callInternal<TData = Record<string, unknown>>(
  api: Pick<Api, 'fetch'>,
  procedure: string,
  input: unknown,
  caller: Caller,
): Promise<InternalReply<TData>> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if ('rootKey' in caller) headers.Authorization = `Bearer ${caller.rootKey}`;
  if ('session' in caller) Object.assign(headers, dashboardHeaders(caller.session));
  if ('headers' in caller) Object.assign(headers, caller.headers);
  const response = await api.fetch(`/trpc/${procedure}`, {
    method: 'POST',
    headers,
    body: input === undefined ? undefined : JSON.stringify(input),
  });
  const body = (await response.json()) as { result?: { data: TData }; error?: InternalReply<TData>['error'] };
  return {
    status: response.status,
    data: body.result?.data as TData,
    error: body.error,
    setCookie: response.headers.getSetCookie(),
    headers: response.headers,
  };
}

/** What the dashboard sends with a session: its cookie and the header that proves it is the dashboard. */
export const dashboardHeaders = (session: string) => ({
  Cookie: `keyplane_session=${session}`,
  'x-keyplane-dashboard': '1',
});

/** Signs in to the dashboard and answers the session cookie's value. */
export async function signIn(api: Pick<Api, 'fetch'>, rootKey: string): Promise<string> {
  const reply = await callInternal(api, 'dashboard.signIn', { rootKey }, { headers: { 'x-keyplane-dashboard': '1' } });
  const cookie = reply.setCookie.find((header) => header.startsWith('keyplane_session='));
  if (reply.status !== 200 || !cookie) throw new Error(`sign-in failed: ${JSON.stringify(reply.error)}`);
  return cookie.slice('keyplane_session='.length).split(';')[0] as string;
}
