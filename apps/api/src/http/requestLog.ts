import type { Logger, RequestLine } from '../log.ts';
import type { NodeMetrics } from '../metrics.ts';

export interface RequestOutcome extends RequestLine {
  /** What made a 5xx: logged with its stack, never sent to the caller. */
  failure?: unknown;
}

/** Called once for every answered request, whatever route it took. */
export type RecordRequest = (outcome: RequestOutcome) => void;

/**
 * Every answered request is counted in the metrics and gets one log line (failures always, the
 * others unless `logRequests` is off); never any header or body, so no key material.
 */
export function requestRecorder(options: {
  logger: Logger;
  logRequests: boolean;
  metrics?: NodeMetrics;
}): RecordRequest {
  const { logger, logRequests, metrics } = options;
  return (outcome) => {
    metrics?.observeRequest(outcome);
    if (outcome.failure !== undefined) {
      const { failure, ...fields } = outcome;
      fields.durationMs = Math.round(fields.durationMs * 100) / 100;
      logger.error('request failed', { ...fields, error: failure instanceof Error ? failure.stack : String(failure) });
    } else if (logRequests) {
      logger.request(outcome);
    }
  };
}
