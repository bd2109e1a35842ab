import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Readiness } from '../readiness.ts';
import { readIncomingBody } from './body.ts';
import { CLIENT_CLOSED_REQUEST, mediaTypeOf, problemBody, problems } from './problem.ts';
import { REQUEST_ID_HEADER, requestIdFor, TRACEPARENT_HEADER, traceIdFrom } from './requestId.ts';
import type { RecordRequest } from './requestLog.ts';
import { metricsDisabledBy, type V2Answer, type V2Handler } from './v2.ts';

/** The reference's header for opting one call out of analytics. */
const METRICS_HEADER = 'x-unkey-metrics';

const V2_PATH = /^\/v2\/([^/?#]+)(?:\?.*)?$/;

/** A `/v2` call waiting for the end of the event loop's turn in which it arrived. */
interface ArrivedCall {
  request: IncomingMessage;
  response: ServerResponse;
  name: string;
  started: number;
}

/**
 * The one transport of `/v2`: Node's request and response, straight into the pipeline (no web
 * Request/Response conversion on the hot path). `accept` takes a request whose path is
 * `/v2/<name>` and returns false for any other path.
 */
export function createV2Transport(options: {
  handleV2: V2Handler;
  readiness: Readiness;
  recordRequest: RecordRequest;
  errorsBaseUrl: string;
}) {
  const { handleV2, readiness, recordRequest, errorsBaseUrl } = options;

  /** Liveness and readiness: read with GET, answered by the transport itself, never by a procedure. */
  async function probe(name: 'liveness' | 'readiness', method: string, requestId: string): Promise<V2Answer> {
    if (method !== 'GET') {
      return {
        status: 405,
        body: problemBody(problems.methodNotAllowed(method, 'GET'), requestId, errorsBaseUrl),
        headers: { Allow: 'GET' },
      };
    }
    const reasons = name === 'readiness' ? await readiness.check() : [];
    return reasons.length === 0
      ? { status: 200, body: { meta: { requestId }, data: { message: 'OK' } } }
      : { status: 503, body: problemBody(problems.notReady(reasons), requestId, errorsBaseUrl) };
  }

  // The /v2 calls that arrive in one turn of the event loop are answered together, once that turn's
  // I/O is read: their pipelines then run interleaved, a stage for every call in a row, so the
  // pipeline's code and data stay in the CPU caches. Answered one by one, the HTTP parsing of each
  // next request evicts them (docs/decisions/0001-own-v2-transport.md).
  let arrived: ArrivedCall[] = [];
  const answerArrived = () => {
    const batch = arrived;
    arrived = [];
    for (const call of batch) void answer(call);
  };

  async function answer({ request, response, name, started }: ArrivedCall): Promise<void> {
    const requestId = requestIdFor(request.headers[REQUEST_ID_HEADER]);
    const method = request.method ?? 'GET';
    let answered: V2Answer;
    if (name === 'liveness' || name === 'readiness') {
      answered = await probe(name, method, requestId);
    } else {
      try {
        answered = await handleV2(
          {
            method,
            procedure: name,
            contentType: request.headers['content-type'],
            authorization: request.headers.authorization,
            metricsDisabled: metricsDisabledBy(request.headers[METRICS_HEADER] as string | undefined),
            readBody: (limit) => readIncomingBody(request, limit),
          },
          requestId,
        );
      } catch (error) {
        answered = {
          status: 500,
          body: problemBody(problems.unexpected(), requestId, errorsBaseUrl),
          failure: error,
        };
      }
    }
    // A client that hung up is not answered, and is logged as such rather than as a failure.
    const clientGone = request.socket.destroyed;
    if (!clientGone) {
      const payload = JSON.stringify(answered.body);
      response.writeHead(answered.status, {
        'content-type': mediaTypeOf(answered.status, request.headers.accept),
        'content-length': Buffer.byteLength(payload),
        [REQUEST_ID_HEADER]: requestId,
        ...answered.headers,
      });
      response.end(payload);
    }
    recordRequest({
      requestId,
      method,
      // Without the query string: a client may have put a secret in it.
      path: `/v2/${name}`,
      procedure: name === 'liveness' || name === 'readiness' ? undefined : name,
      status: clientGone ? CLIENT_CLOSED_REQUEST : answered.status,
      durationMs: performance.now() - started,
      traceId: traceIdFrom(request.headers[TRACEPARENT_HEADER]),
      failure: answered.failure,
    });
  }

  return {
    accept(request: IncomingMessage, response: ServerResponse): boolean {
      const name = V2_PATH.exec(request.url ?? '')?.[1];
      if (name === undefined) return false;
      if (arrived.push({ request, response, name, started: performance.now() }) === 1) setImmediate(answerArrived);
      return true;
    },
  };
}
