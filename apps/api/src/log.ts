import { type DestinationStream, type LevelWithSilent, pino } from 'pino';
import { BufferedOutput } from './bufferedOutput.ts';

export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** The fields of a request's line: the same for every request, and never any key material. */
export interface RequestLine {
  requestId: string;
  method: string;
  path: string;
  procedure: string | undefined;
  status: number;
  durationMs: number;
  /** The caller's trace id, from its `traceparent` header. */
  traceId?: string;
}

export interface Logger {
  info(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** The info line `request` with these fields, as `info` writes it, for every answered request. */
  request(line: RequestLine): void;
}

/** The process's logger: `flush` resolves once every line logged before it is written. */
export interface FlushableLogger extends Logger {
  flush(): Promise<void>;
}

/**
 * Field names whose values are secrets: callers never pass key material in, and should one slip
 * into a field of that name it is written as "[Redacted]". Fields are flat (LogFields), so these
 * top-level paths are every place they can appear.
 */
const SECRET_FIELDS = ['authorization', 'key', 'rootKey', 'plaintext'];

/** The ISO time of the current millisecond, formatted once for all the lines logged in it. */
function isoTimeOncePerMillisecond(): () => string {
  let millisecond = 0;
  let field = '';
  return () => {
    const now = Date.now();
    if (now !== millisecond) {
      millisecond = now;
      field = `,"time":"${new Date(now).toISOString()}"`;
    }
    return field;
  };
}

/**
 * One JSON object per line, `{"level":"info","time":"<ISO>",…fields,"message":"…"}`, by default on
 * standard output through a buffer written in batches (see BufferedOutput): a synchronous
 * write per line to a pipe cost the service about a fifth of its throughput.
 */
export function jsonLogger(level: LevelWithSilent = 'info', destination?: DestinationStream): FlushableLogger {
  const time = isoTimeOncePerMillisecond();
  const output: DestinationStream =
    destination ??
    new BufferedOutput({
      onDropped: (lines) => logger.error({ lines }, 'log lines dropped: standard output was not read fast enough'),
    });
  const logger = pino(
    {
      level,
      base: undefined,
      messageKey: 'message',
      timestamp: time,
      formatters: { level: (label) => ({ level: label }) },
      redact: SECRET_FIELDS,
    },
    output,
  );
  return {
    info: (message, fields) => logger.info(fields, message),
    error: (message, fields) => logger.error(fields, message),
    // The one line written for every request is built here rather than by pino: its fields are
    // fixed and hold no secret, and pino's generic path (serialising, redacting) made request
    // logging cost twice as much CPU (docs/architecture.md, Request log).
    request: (line) => {
      if (!logger.isLevelEnabled('info')) return;
      const procedure = line.procedure === undefined ? '' : `,"procedure":${JSON.stringify(line.procedure)}`;
      // Checked against a hex pattern where it was read: no escaping needed.
      const traceId = line.traceId === undefined ? '' : `,"traceId":"${line.traceId}"`;
      output.write(
        `{"level":"info"${time()},"requestId":${JSON.stringify(line.requestId)},"method":${JSON.stringify(line.method)},` +
          `"path":${JSON.stringify(line.path)}${procedure},"status":${line.status},` +
          `"durationMs":${Math.round(line.durationMs * 100) / 100}${traceId},"message":"request"}\n`,
      );
    },
    flush: () => new Promise((resolve) => logger.flush(() => resolve())),
  };
}

export const silentLogger: Logger = { info: () => {}, error: () => {}, request: () => {} };
