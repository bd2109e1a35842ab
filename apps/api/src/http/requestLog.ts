import type { Logger, RequestLine } from '../log.ts';

export interface RequestOutcome extends RequestLine {
  /** What made a 5xx: logged with its stack, never sent to the caller. */
  failure?: unknown;
}

/** One line per request; never any header or body, so no key material. */
export function logRequest(logger: Logger, logRequests: boolean, outcome: RequestOutcome): void {
  if (outcome.failure !== undefined) {
    const { failure, ...fields } = outcome;
    fields.durationMs = Math.round(fields.durationMs * 100) / 100;
    logger.error('request failed', { ...fields, error: failure instanceof Error ? failure.stack : String(failure) });
  } else if (logRequests) {
    logger.request(outcome);
  }
}
