import { type ChildProcess, spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';

const SERVER_ENTRY = fileURLToPath(new URL('../apps/api/src/main.ts', import.meta.url));

export interface SpawnedServer {
  url: string;
  pid: number | undefined;
  /** The bootstrap root key, when this server created the workspace. */
  rootKey?: string;
  /** The first-run setup link it printed beside the root key. */
  setupUrl?: string;
  /** Shuts it down as an operator would (SIGTERM); resolves with its exit code once its output is read to the end. */
  stop(): Promise<number | null>;
  /** Stops it as Ctrl-C at a terminal would (SIGINT); resolves with its exit code. */
  interrupt(): Promise<number | null>;
  /** Ends it at once, as a crash would (SIGKILL): it cleans up nothing. */
  kill(): Promise<number | null>;
}

export interface SpawnOptions {
  /** Receives the server's stdout once it listens, chunk by chunk; otherwise it is read and dropped. */
  onOutput?: (chunk: string) => void;
  /** The server's entry point: this checkout's unless another checkout's is given (bench/compare.ts). */
  entry?: string;
}

/**
 * Starts a Keyplane server as its own process (as in production: the load generator must not share
 * its event loop) and resolves once it listens. Request lines are off unless `env` turns them on,
 * and a stop drains at once unless `env` sets SHUTDOWN_DRAIN_DELAY_MS.
 * Its stdout is a pipe that is always read, as a process manager reads it: as bytes, decoded only
 * for `onOutput`, since decoding millions of request lines here would take CPU from the load generator.
 */
export async function spawnServer(env: Record<string, string>, options: SpawnOptions = {}): Promise<SpawnedServer> {
  const child: ChildProcess = spawn(process.execPath, [options.entry ?? SERVER_ENTRY], {
    // No balancer waits on these servers' readiness: a stop need not keep listening for one.
    env: { PORT: '0', HOST: '127.0.0.1', LOG_REQUESTS: 'false', SHUTDOWN_DRAIN_DELAY_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout = child.stdout as NodeJS.ReadableStream;
  // Once the process is gone and its output read to the end.
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const output: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  return new Promise((resolve, reject) => {
    let rootKey: string | undefined;
    let setupUrl: string | undefined;
    let unread = '';
    const decoder = new StringDecoder('utf8');
    const readStartUp = (chunk: Buffer) => {
      unread += decoder.write(chunk);
      for (let newline = unread.indexOf('\n'); newline >= 0; newline = unread.indexOf('\n')) {
        const line = unread.slice(0, newline);
        unread = unread.slice(newline + 1);
        output.push(line);
        rootKey ??= /root key:\s+(\S+)/.exec(line)?.[1];
        setupUrl ??= /setup link:\s+(\S+)/.exec(line)?.[1];
        if (line.includes('"keyplane is listening"')) return listening(line);
      }
    };
    const listening = (line: string) => {
      const { port } = JSON.parse(line) as { port: number };
      // From here on the output can be millions of lines: it is neither split into lines nor kept.
      stdout.off('data', readStartUp);
      const { onOutput } = options;
      if (onOutput) {
        if (unread) onOutput(unread);
        stdout.on('data', (chunk: Buffer) => onOutput(decoder.write(chunk)));
      } else {
        stdout.resume();
      }
      const end = (signal: NodeJS.Signals) => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        return closed;
      };
      resolve({
        url: `http://127.0.0.1:${port}`,
        pid: child.pid,
        rootKey,
        setupUrl,
        stop: () => end('SIGTERM'),
        interrupt: () => end('SIGINT'),
        kill: () => end('SIGKILL'),
      });
    };
    stdout.on('data', readStartUp);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output.join('\n')}`)));
  });
}
