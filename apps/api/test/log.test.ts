import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { requestRecorder } from '../src/http/requests.ts';
import { jsonLogger } from '../src/log.ts';

/** A logger writing into an array, one parsed object per line. */
function recorded(level: Parameters<typeof jsonLogger>[0] = 'info') {
  const lines: Record<string, unknown>[] = [];
  const logger = jsonLogger(level, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { lines, logger };
}

const outcome = {
  requestId: 'req_123',
  method: 'POST',
  path: '/v2/keys.verifyKey',
  procedure: 'keys.verifyKey',
  status: 200,
  durationMs: 1.23456,
};

describe('a request line', () => {
  it('holds the request id, method, path, procedure, status and duration, its level, time and message', () => {
    const { lines, logger } = recorded();
    requestRecorder({ logger: logger, logRequests: true })(outcome);
    expect(lines).toEqual([
      {
        level: 'info',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        requestId: 'req_123',
        method: 'POST',
        path: '/v2/keys.verifyKey',
        procedure: 'keys.verifyKey',
        status: 200,
        durationMs: 1.23,
        message: 'request',
      },
    ]);
    expect(Math.abs(Date.parse(lines[0]?.time as string) - Date.now())).toBeLessThan(60_000);
  });

  it('is the line info writes with the same fields, in the same order', () => {
    const { lines, logger } = recorded();
    const fields = { ...outcome, path: '/v2/"quoted\\path', durationMs: 1.23 };
    logger.request(fields);
    logger.info('request', fields);
    // The two lines may fall in different milliseconds: their times are compared apart.
    const [built, byInfo] = lines.map(({ time, ...rest }) => ({ time: Date.parse(time as string), rest }));
    expect(built?.rest).toEqual(byInfo?.rest);
    expect((byInfo?.time ?? 0) - (built?.time ?? 0)).toBeGreaterThanOrEqual(0);
    expect((byInfo?.time ?? 0) - (built?.time ?? 0)).toBeLessThan(1000);
    expect(Object.keys(lines[0] ?? {})).toEqual(Object.keys(lines[1] ?? {}));
  });

  it('writes its duration as the shortest number of its hundredths', () => {
    const texts: string[] = [];
    const logger = jsonLogger('info', { write: (line: string) => texts.push(line) });
    for (const durationMs of [0.004, 0.396, 2, 61.0549, 1234.5]) logger.request({ ...outcome, durationMs });
    expect(texts.map((text) => /"durationMs":([^,]+),/.exec(text)?.[1])).toEqual(['0', '0.4', '2', '61.05', '1234.5']);
  });

  it("carries the caller's trace id when it has one, as info writes it", () => {
    const { lines, logger } = recorded();
    const fields = { ...outcome, durationMs: 1.23, traceId: '4bf92f3577b34da6a3ce929d0e0e4736' };
    logger.request(fields);
    logger.info('request', fields);
    expect(lines[0]).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', message: 'request' });
    expect(Object.keys(lines[0] ?? {})).toEqual(Object.keys(lines[1] ?? {}));
  });

  it('has no procedure where the path names none', () => {
    const { lines, logger } = recorded();
    requestRecorder({ logger: logger, logRequests: true })({ ...outcome, path: '/v2/', procedure: undefined });
    expect(lines[0]).not.toHaveProperty('procedure');
    expect(lines[0]).toMatchObject({ path: '/v2/', status: 200 });
  });

  it('is not written below LOG_LEVEL info, nor with LOG_REQUESTS off', () => {
    const quiet = recorded('error');
    requestRecorder({ logger: quiet.logger, logRequests: true })(outcome);
    const off = recorded();
    requestRecorder({ logger: off.logger, logRequests: false })(outcome);
    expect([...quiet.lines, ...off.lines]).toEqual([]);
  });

  it('of a failure is an error with its stack', () => {
    const { lines, logger } = recorded();
    requestRecorder({ logger: logger, logRequests: false })({
      ...outcome,
      status: 500,
      failure: new Error('database gone'),
    });
    expect(lines).toEqual([
      expect.objectContaining({ level: 'error', message: 'request failed', requestId: 'req_123', status: 500 }),
    ]);
    expect(lines[0]?.error).toMatch(/^Error: database gone\n\s+at /);
  });
});

describe('secrets in logged fields', () => {
  it.each(['authorization', 'key', 'rootKey', 'plaintext'])('are redacted under %s', (name) => {
    const { lines, logger } = recorded();
    logger.info('something', { [name]: 'kproot_secret', keyId: 'key_123' });
    expect(lines[0]).toMatchObject({ [name]: '[Redacted]', keyId: 'key_123' });
    expect(JSON.stringify(lines)).not.toContain('kproot_secret');
  });
});

describe('LOG_LEVEL', () => {
  it('drops the lines below it', () => {
    const { lines, logger } = recorded('error');
    logger.info('request', { status: 200 });
    logger.error('request failed', { status: 500 });
    expect(lines).toEqual([expect.objectContaining({ level: 'error', status: 500 })]);
  });

  it('silent drops every line', () => {
    const { lines, logger } = recorded('silent');
    logger.error('request failed');
    expect(lines).toEqual([]);
  });

  it('debug keeps the info lines', () => {
    const { lines, logger } = recorded('debug');
    logger.info('request');
    expect(lines).toHaveLength(1);
  });
});

/** Runs a script in a process of its own, answering its stdout (unless left unread) and exit code. */
function runScript(source: string, readStdout = true): Promise<{ stdout: string; code: number | null }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'ignore'] });
  let stdout = '';
  if (readStdout) {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
  }
  return new Promise((resolve) => child.once('exit', (code) => resolve({ stdout, code })));
}

describe('lines logged just before the process ends', () => {
  const logThen = (end: string) => `
    import { jsonLogger } from ${JSON.stringify(new URL('../src/log.ts', import.meta.url).href)};
    const logger = jsonLogger();
    for (let n = 0; n < 1000; n++) logger.info('line', { n });
    ${end}`;

  it('do not hold up the exit when standard output is no longer read', async () => {
    // Far more than a pipe holds: a write stays under way, waiting for a reader that never reads.
    const source = logThen(`
      for (let n = 0; n < 20000; n++) logger.info('line', { n, padding: 'x'.repeat(100) });
      setTimeout(() => process.exit(4), 200);`);
    const { code } = await runScript(source, false);
    expect(code).toBe(4);
  });

  it.each([
    ['an uncaught exception', "throw new Error('crash');", 1],
    ['process.exit', 'process.exit(3);', 3],
  ])('are written out on %s', async (_, end, exitCode) => {
    const { stdout, code } = await runScript(logThen(end));
    expect(code).toBe(exitCode);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1000);
    expect(lines.map((line) => JSON.parse(line).n)).toEqual([...Array(1000).keys()]);
  });
});
