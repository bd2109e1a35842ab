// What every throughput bench shares: autocannon rounds against a server, the bare node:http
// ceiling they are set against, and their summary (bench/run.ts explains the method).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export const CONNECTIONS = 50;
/** Each case runs in rounds, each right after a round of the ceiling, so both see the same machine. */
export const ROUNDS = 3;
export const SECONDS_PER_ROUND = 5;

/** One autocannon run. */
export interface Run {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** CPU time the server process spent during the run, all its threads (Linux only). */
  serverCpuSeconds: number | undefined;
  /** Of that, its main thread's: the one that answers requests. */
  mainThreadCpuSeconds: number | undefined;
  /** The server's garbage-collection pauses during the run, and their time (from its /metrics). */
  gcPauses: number | undefined;
  gcPauseSeconds: number | undefined;
}

export interface Measured {
  requestsPerSecond: number;
  /** Median of the rounds' medians. */
  p50: number;
  /** Worst of the rounds' p99s. */
  p99: number;
  non2xx: number;
  /** CPU time the server process spent per request, in microseconds (Linux only). */
  serverCpuMicros: number | undefined;
  /** Of that, its main thread's, which bounds a node's throughput. */
  mainThreadCpuMicros: number | undefined;
  /** The share of the time the server was paused for its garbage collector, and the mean pause in ms. */
  gcPausedShare: number | undefined;
  gcMeanPauseMs: number | undefined;
}

/** Linux's accounting unit for process CPU time in /proc (USER_HZ, 100 on every mainstream kernel). */
const TICKS_PER_SECOND = 100;

/**
 * User plus system CPU time of a process so far, in seconds, or of its main thread alone (whose
 * thread id is the process id); undefined where /proc is not there.
 */
function cpuSeconds(pid: number | undefined, mainThreadOnly = false): number | undefined {
  try {
    const stat = mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
    const fields = readFileSync(stat, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** prom-client's pause durations of the garbage collector, every kind of collection. */
const GC_PAUSES = /^nodejs_gc_duration_seconds_(sum|count)\{[^}]*\} (\S+)$/gm;

/**
 * The garbage collector's pauses of a Keyplane server so far, from its `/metrics`; undefined
 * without a URL (the ceiling has none). Each pause holds up every request in flight: on a loaded
 * node they are much of the p99 (docs/performance.md#what-holds-it-back).
 */
async function gcPausesSoFar(metricsUrl: string | undefined): Promise<{ count: number; seconds: number } | undefined> {
  if (metricsUrl === undefined) return undefined;
  const exposition = await (await fetch(metricsUrl)).text();
  const pauses = { count: 0, seconds: 0 };
  for (const [, field, value] of exposition.matchAll(GC_PAUSES)) {
    if (field === 'sum') pauses.seconds += Number(value);
    else pauses.count += Number(value);
  }
  return pauses;
}

export async function run(
  url: string,
  init: { headers: Record<string, string>; body: string },
  serverPid: number | undefined,
  metricsUrl?: string,
) {
  const gcBefore = await gcPausesSoFar(metricsUrl);
  const cpuBefore = cpuSeconds(serverPid);
  const mainThreadBefore = cpuSeconds(serverPid, true);
  const result = await autocannon({
    url,
    method: 'POST',
    headers: init.headers,
    body: init.body,
    connections: CONNECTIONS,
    duration: SECONDS_PER_ROUND,
  });
  const cpuAfter = cpuSeconds(serverPid);
  const mainThreadAfter = cpuSeconds(serverPid, true);
  const gcAfter = await gcPausesSoFar(metricsUrl);
  const spent = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined ? undefined : after - before;
  return {
    requests: result.requests.total,
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
    serverCpuSeconds: spent(cpuBefore, cpuAfter),
    mainThreadCpuSeconds: spent(mainThreadBefore, mainThreadAfter),
    gcPauses: spent(gcBefore?.count, gcAfter?.count),
    gcPauseSeconds: spent(gcBefore?.seconds, gcAfter?.seconds),
  } satisfies Run;
}

export const rate = (round: Run) => round.requests / round.seconds;
export const percent = (ratio: number) => (ratio * 100).toFixed(0);
export const signed = (value: number) => `${value > 0 ? '+' : ''}${value.toFixed(1)}`;

export function summarise(runs: Run[]): Measured {
  const requests = runs.reduce((sum, round) => sum + round.requests, 0);
  const seconds = runs.reduce((sum, round) => sum + round.seconds, 0);
  const total = (values: (number | undefined)[]) =>
    values.includes(undefined) ? undefined : values.reduce<number>((sum, value) => sum + (value ?? 0), 0);
  const gcPauses = total(runs.map((round) => round.gcPauses));
  const gcPauseSeconds = total(runs.map((round) => round.gcPauseSeconds));
  const perRequest = (cpu: (number | undefined)[]) =>
    cpu.includes(undefined)
      ? undefined
      : (cpu.reduce<number>((sum, seconds) => sum + (seconds ?? 0), 0) * 1e6) / requests;
  const p50s = runs.map((round) => round.p50).sort((a, b) => a - b);
  return {
    requestsPerSecond: requests / seconds,
    p50: p50s[Math.floor(p50s.length / 2)] ?? 0,
    p99: Math.max(...runs.map((round) => round.p99)),
    non2xx: runs.reduce((sum, round) => sum + round.non2xx, 0),
    serverCpuMicros: perRequest(runs.map((round) => round.serverCpuSeconds)),
    mainThreadCpuMicros: perRequest(runs.map((round) => round.mainThreadCpuSeconds)),
    gcPausedShare: gcPauseSeconds === undefined ? undefined : gcPauseSeconds / seconds,
    gcMeanPauseMs: gcPauses && gcPauseSeconds !== undefined ? (gcPauseSeconds * 1000) / gcPauses : undefined,
  };
}

/** The garbage collector's column: the share of the time paused, and the mean pause. */
export function gcPausedColumn(measured: Measured): string {
  const { gcPausedShare, gcMeanPauseMs } = measured;
  if (gcPausedShare === undefined) return '-';
  return `${(gcPausedShare * 100).toFixed(1)}%, ${gcMeanPauseMs?.toFixed(1) ?? '-'} ms`;
}

/** The ceiling: a bare node:http server answering a fixed JSON body, in its own process. */
export async function startCeiling(): Promise<{ url: string; child: ChildProcess }> {
  const source = `
    const body = JSON.stringify({ meta: { requestId: 'req_x' }, data: { valid: true, code: 'VALID' } });
    require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); }); })
      .listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) =>
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())),
  );
  return { url: `http://127.0.0.1:${port}`, child };
}

export async function post<T>(url: string, rootKey: string, body: unknown): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${rootKey}` },
    body: JSON.stringify(body),
  });
  const parsed = (await response.json()) as { data: T; error?: unknown };
  if (!response.ok) throw new Error(`${url}: ${JSON.stringify(parsed.error)}`);
  return parsed.data;
}
