import { TRPCClientError } from '@trpc/client';
import type { TRPCDefaultErrorShape } from '@trpc/server';

/**
 * The error shape the server answers (its tRPC `errorFormatter`): tRPC's own, with the public
 * error's type and the request id. index.ts checks at compile time that the router's is this one.
 */
export type KeyplaneErrorShape = TRPCDefaultErrorShape & {
  data: TRPCDefaultErrorShape['data'] & { type: string | null; requestId: string | null };
};

/** What a TRPCClientError needs to know of the server: its error shape alone. */
export type KeyplaneErrorTypes = { errorShape: KeyplaneErrorShape; transformer: false };

/** The header every answer of the server carries its request id in. */
const REQUEST_ID_HEADER = 'x-request-id';

/**
 * Every failed call rejects with this: an error answer of the server, or no answer at all (the
 * server unreachable, the connection dropped). It is a `TRPCClientError`, so `data` and `shape`
 * are still there for whoever needs tRPC's own view.
 */
export class KeyplaneError extends TRPCClientError<KeyplaneErrorTypes> {
  /** The answer's HTTP status, as the public API gives it (0 when no answer came). */
  readonly status: number;
  /**
   * The public error's type: its path under the errors base URL, e.g. `service/data/api_not_found`
   * (null when the answer names none, or no answer came).
   */
  readonly type: string | null;
  /** The id the server gave the request (its `X-Request-Id`); quote it when asking about a failure. */
  readonly requestId: string | undefined;

  constructor(error: TRPCClientError<KeyplaneErrorTypes>) {
    super(error.message, {
      result: error.shape ? { error: error.shape } : undefined,
      cause: error.cause,
      meta: error.meta,
    });
    // TRPCClientError pins its own prototype; a subclass has to restore its own.
    Object.setPrototypeOf(this, new.target.prototype);
    this.name = 'KeyplaneError';
    const response = error.meta?.response instanceof Response ? error.meta.response : undefined;
    this.status = error.data?.httpStatus ?? response?.status ?? 0;
    this.type = error.data?.type ?? null;
    this.requestId = error.data?.requestId ?? response?.headers.get(REQUEST_ID_HEADER) ?? undefined;
  }
}

/** The error a call rejects with, whatever the link below it threw. */
export function toKeyplaneError(cause: unknown): KeyplaneError {
  return cause instanceof KeyplaneError
    ? cause
    : new KeyplaneError(TRPCClientError.from<KeyplaneErrorTypes>(cause as Error));
}
