import type { Logger } from '../log.ts';

export interface RequestOutcome {
  requestId: string;
  method: string;
  path: string;
  procedure: string | undefined;
  status: number;
  durationMs: number;
  /** What made a 5xx: logged with its stack, never sent to the caller. */
  failure?: unknown;
}

/** One line per request; never any header or body, so no key material. */
export function logRequest(logger: Logger, logRequests: boolean, outcome: RequestOutcome): void {
  const { failure, ...fields } = outcome;
  fields.durationMs = Math.round(fields.durationMs * 100) / 100;
  if (failure !== undefined) {
    logger.error('request failed', { ...fields, error: failure instanceof Error ? failure.stack : String(failure) });
  } else if (logRequests) {
    logger.info('request', fields);
  }
}
