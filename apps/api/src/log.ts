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
 * Text a JSON string holds as it is: only characters from the space up, but for the quote, the
 * backslash and the halves of surrogate pairs.
 */
const JSON_PLAIN = /^[ !#-[\]-\uD7FF\uE000-\uFFFF]*$/;

/** Text as a JSON string. Ids, methods and paths need no escape, and testing that costs half of JSON.stringify. */
const jsonString = (text: string): string => (JSON_PLAIN.test(text) ? `"${text}"` : JSON.stringify(text));

/**
 * Milliseconds rounded to the hundredth, as the shortest JSON number of that value (1, 0.4, 0.37),
 * from integers: finding a measured duration's shortest decimal takes nearly twice as long.
 */
function hundredths(ms: number): string {
  const cents = Math.round(ms * 100);
  if (!Number.isSafeInteger(cents) || cents < 0) return String(cents / 100);
  const fraction = cents % 100;
  const whole = (cents - fraction) / 100;
  if (fraction === 0) return `${whole}`;
  if (fraction % 10 === 0) return `${whole}.${fraction / 10}`;
  return `${whole}.${fraction < 10 ? '0' : ''}${fraction}`;
}

/**
 * One JSON object per line, `{"level":"info","time":"<ISO>",…fields,"message":"…"}`, by default on
 * standard output through a buffer written in batches rather than a write per line to a pipe
 * (docs/decisions/0003-buffered-log-writer.md).
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
    // fixed and hold no secret, and pino's generic path (serialising, redacting) would cost as much
    // again as the line (docs/decisions/0016-hand-built-request-line.md).
    request: (line) => {
      if (!logger.isLevelEnabled('info')) return;
      const procedure = line.procedure === undefined ? '' : `,"procedure":${jsonString(line.procedure)}`;
      // Checked against a hex pattern where it was read: no escaping needed.
      const traceId = line.traceId === undefined ? '' : `,"traceId":"${line.traceId}"`;
      output.write(
        `{"level":"info"${time()},"requestId":${jsonString(line.requestId)},"method":${jsonString(line.method)},` +
          `"path":${jsonString(line.path)}${procedure},"status":${line.status},` +
          `"durationMs":${hundredths(line.durationMs)}${traceId},"message":"request"}\n`,
      );
    },
    flush: () => new Promise((resolve) => logger.flush(() => resolve())),
  };
}

export const silentLogger: Logger = { info: () => {}, error: () => {}, request: () => {} };
