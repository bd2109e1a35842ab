import type { WorkspaceRateLimitState } from '@keyplane/core';
import type { SessionCarrier } from '@keyplane/procedures';
import type { AnyTRPCRouter } from '@trpc/server';
import { BodyTooLargeError, ClientClosedRequestError } from './body.ts';
import { dispatch, publicProcedureTable } from './contract.ts';
import { type Problem, problemBody, problems } from './problem.ts';
import { workspaceRateLimitHeaders } from './rateLimitHeaders.ts';

/** A `/v2/<procedure>` call, whatever transport it came by. */
export interface V2Call {
  method: string;
  procedure: string;
  contentType: string | undefined;
  authorization: string | undefined;
  /** `X-Unkey-Metrics: disabled`: do not record this call in analytics. */
  metricsDisabled: boolean;
  readBody(limit: number): Promise<string>;
}

/** What a context takes from the request's headers, and how it hands back what the response shows. */
export interface CallerHeaders {
  authorization: string | undefined;
  metricsDisabled: boolean;
  clientAddress?: string;
  session?: SessionCarrier;
  onWorkspaceRateLimit?(state: WorkspaceRateLimitState): void;
}

/** The reference's opt-out of analytics for one call. */
export function metricsDisabledBy(header: string | undefined): boolean {
  return header?.trim().toLowerCase() === 'disabled';
}

export interface V2Answer {
  status: number;
  body: unknown;
  /** Allow on 405; the workspace API rate limit's RateLimit-* and Retry-After. */
  headers?: Record<string, string>;
  failure?: unknown;
}

export type V2Handler = (call: V2Call, requestId: string) => Promise<V2Answer>;

const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

/** The public contract's adapter: method, media type, body, then tRPC's own pipeline, in one envelope. */
export function createV2Handler<TContext>(options: {
  router: AnyTRPCRouter;
  maxBodyBytes: number;
  errorsBaseUrl: string;
  contextFor(requestId: string, caller: CallerHeaders): TContext;
}): V2Handler {
  const table = publicProcedureTable(options.router);
  return async (call, requestId) => {
    const answer = (problem: Problem, extra: Partial<V2Answer> = {}): V2Answer => ({
      status: problem.status,
      body: problemBody(problem, requestId, options.errorsBaseUrl),
      ...extra,
    });
    if (call.method !== 'POST') {
      return answer(problems.methodNotAllowed(call.method), { headers: { Allow: 'POST' } });
    }
    if (!table.has(call.procedure)) return answer(problems.unknownProcedure(call.procedure));
    if (call.contentType !== undefined && !JSON_CONTENT_TYPE.test(call.contentType)) {
      return answer(problems.unsupportedMediaType(call.contentType));
    }
    let text: string;
    try {
      text = await call.readBody(options.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return answer(problems.bodyTooLarge(options.maxBodyBytes));
      if (error instanceof ClientClosedRequestError) return answer(problems.clientClosedRequest());
      throw error;
    }
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch (error) {
      return answer(problems.malformedJson(error instanceof Error ? error.message : 'unreadable'));
    }
    // Arrays pass on to the procedure's schema (a batch procedure may take one); scalars never do.
    if (typeof input !== 'object' || input === null) return answer(problems.notAnObject());

    let headers: Record<string, string> | undefined;
    const result = await dispatch({
      table,
      path: call.procedure,
      input,
      ctx: options.contextFor(requestId, {
        authorization: call.authorization,
        metricsDisabled: call.metricsDisabled,
        onWorkspaceRateLimit: (state) => {
          headers = workspaceRateLimitHeaders(state);
        },
      }),
    });
    if (result.ok) {
      if (!result.list) return { status: 200, body: { meta: { requestId }, data: result.data }, headers };
      const { data, pagination } = result.data as { data: unknown; pagination: unknown };
      return { status: 200, body: { meta: { requestId }, data, pagination }, headers };
    }
    return answer(result.problem, { headers, ...(result.problem.status >= 500 ? { failure: result.cause } : {}) });
  };
}
