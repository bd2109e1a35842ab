import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVER_ENTRY = fileURLToPath(new URL('../apps/api/src/main.ts', import.meta.url));

export interface SpawnedServer {
  url: string;
  pid: number | undefined;
  /** The bootstrap root key, when this server created the workspace. */
  rootKey?: string;
  stop(): Promise<void>;
}

/**
 * Starts a Keyplane server as its own process (as in production: the load generator must not share
 * its event loop) and resolves once it listens.
 */
export async function spawnServer(env: Record<string, string>): Promise<SpawnedServer> {
  const child: ChildProcess = spawn(process.execPath, [SERVER_ENTRY], {
    env: { PORT: '0', HOST: '127.0.0.1', LOG_REQUESTS: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  return new Promise((resolve, reject) => {
    let rootKey: string | undefined;
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      output.push(line);
      rootKey ??= /root key:\s+(\S+)/.exec(line)?.[1];
      if (line.includes('"keyplane is listening"')) {
        const { port } = JSON.parse(line) as { port: number };
        resolve({
          url: `http://127.0.0.1:${port}`,
          pid: child.pid,
          rootKey,
          stop: () =>
            new Promise<void>((done) => {
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output.join('\n')}`)));
  });
}
