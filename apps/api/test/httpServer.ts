import type { AddressInfo } from 'node:net';
import { type AppDeps, createHttpServer } from '../src/http/app.ts';
import type { problemBody } from '../src/http/problem.ts';
import { assertDescribed } from './describedAnswers.ts';
import type { InputOf, OutputOf, ProcedurePath } from './procedures.ts';

/** The public error envelope's `error`, as the server builds it. */
export type ErrorEnvelope = ReturnType<typeof problemBody>['error'];

/**
 * A response as tests read it: status, headers and the parsed JSON body. The body holds `data`
 * when the status is 200 and `error` otherwise; both are typed so that a test reads the one its
 * asserted status promises without narrowing first.
 */
export interface Reply<TData = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: {
    meta: { requestId: string };
    data: TData;
    error: ErrorEnvelope;
  };
}

/**
 * The reply of a procedure: its 200 body is what the router's type for it says. `/v2` answers a
 * list procedure's `{ data, pagination }` beside `meta`, not inside `data`.
 */
export type ReplyOf<P extends ProcedurePath> =
  OutputOf<P> extends { data: unknown; pagination: unknown }
    ? Reply<OutputOf<P>['data']> & { body: { pagination: OutputOf<P>['pagination'] } }
    : Reply<OutputOf<P>>;

export async function replyOf<TData>(response: Response): Promise<Reply<TData>> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** A `/v2` reply, checked against the OpenAPI document: an answer that drifts from it fails the test. */
async function describedReplyOf<TData>(response: Response, path: string, method: string): Promise<Reply<TData>> {
  const reply = await replyOf<TData>(response);
  assertDescribed(path, method, {
    status: reply.status,
    contentType: reply.headers.get('content-type') ?? '',
    body: reply.body,
  });
  return reply;
}

/**
 * POST <baseUrl>/v2/<procedure> with the procedure's input and a root key, typed by the router:
 * for servers the test runs as processes of their own rather than through `useApi`.
 */
export async function callAt<P extends ProcedurePath>(
  baseUrl: string,
  procedure: P,
  input: InputOf<P>,
  rootKey: string,
): Promise<ReplyOf<P>> {
  const response = await fetch(`${baseUrl}/v2/${procedure}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
    body: JSON.stringify(input),
  });
  return describedReplyOf(response, `/v2/${procedure}`, 'POST') as Promise<ReplyOf<P>>;
}

/** A request body given as the exact JSON text to send. */
export class JsonText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

export interface TestServer {
  url: string;
  /** fetch, to a path of this server. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Any request, as fetch takes it, to a path of this server. */
  request<TData = Record<string, unknown>>(path: string, init: RequestInit): Promise<Reply<TData>>;
  /** POST /v2/<procedure> with a JSON body and, when given, a root key. */
  post<TData = Record<string, unknown>>(procedure: string, body: unknown, rootKey?: string): Promise<Reply<TData>>;
  /** POST /v2/<procedure> with an input of the procedure's type; its reply typed by the router. */
  call<P extends ProcedurePath>(procedure: P, input: InputOf<P>, rootKey?: string): Promise<ReplyOf<P>>;
  close(): Promise<void>;
}

/**
 * Requests to a server at `url` (`http://127.0.0.1:<port>`), answers checked against the OpenAPI
 * document: for the test app's server and for server processes alike.
 */
export function httpClient(url: string): Omit<TestServer, 'close'> {
  const fetchPath = (path: string, init?: RequestInit) => fetch(`${url}${path}`, init);
  const request = async <TData>(path: string, init: RequestInit) =>
    describedReplyOf<TData>(await fetchPath(path, init), path, init.method ?? 'GET');
  const post = <TData>(procedure: string, body: unknown, rootKey?: string) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (rootKey !== undefined) headers.Authorization = `Bearer ${rootKey}`;
    const text = body instanceof JsonText ? body.text : JSON.stringify(body);
    return request<TData>(`/v2/${procedure}`, { method: 'POST', headers, body: text });
  };
  return {
    url,
    fetch: fetchPath,
    request,
    post,
    call: <P extends ProcedurePath>(procedure: P, input: InputOf<P>, rootKey?: string) =>
      post(procedure, input, rootKey) as Promise<ReplyOf<P>>,
  };
}

/**
 * The production HTTP server (the listener `npm start` runs) on a loopback port of its own, driven
 * over a real socket: a test that passes went through the same code as a client's request.
 */
export async function serveHttp(deps: AppDeps): Promise<TestServer> {
  const server = createHttpServer(deps);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ...httpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
