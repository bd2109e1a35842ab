import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';

/**
 * A redis-server of one test's own, on a free loopback port, without persistence: it can be killed
 * and started again empty, as after a crash, without touching the Redis other developers share.
 */
export interface OwnRedis {
  port: number;
  url: string;
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let server: ChildProcess | undefined;
  const own: OwnRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      if (server === undefined || server.exitCode !== null || server.signalCode !== null) return;
      const exited = once(server, 'exit');
      server.kill('SIGKILL');
      await exited;
    },
    async start() {
      server = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir()],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      await untilReady(server);
    },
  };
  await own.start();
  return own;
}

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  await once(probe, 'close');
  if (address === null || typeof address === 'string') throw new Error('The probe has no TCP address');
  return address.port;
}

/** Resolves once the server says it accepts connections; rejects if it exits first. */
async function untilReady(server: ChildProcess): Promise<void> {
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('Ready to accept connections')) return;
      // Still drained, so that a full pipe never blocks the server.
      server.stdout?.off('data', read).resume();
      resolve();
    };
    server.stdout?.on('data', read);
    server.once('exit', (code) => reject(new Error(`redis-server exited with ${code}:\n${output}`)));
  });
}
