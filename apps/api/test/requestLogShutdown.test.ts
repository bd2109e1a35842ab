import { describe, expect, it } from 'vitest';
import { useOwnDatabase } from './serverProcess.ts';

const own = useOwnDatabase();

describe('a server stopped with SIGTERM', () => {
  it('has written the line of every request it answered, and its last line, before it exits', async () => {
    let output = '';
    const server = await own.spawn(
      { LOG_REQUESTS: 'true' },
      {
        onOutput: (chunk) => {
          output += chunk;
        },
      },
    );
    const requestIds = await Promise.all(
      Array.from({ length: 300 }, async () => {
        const response = await fetch(`${server.url}/v2/liveness`);
        return ((await response.json()) as { meta: { requestId: string } }).meta.requestId;
      }),
    );
    // Stopped at once, while the last lines are still held for their batch.
    await server.stop();

    const lines = output
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const logged = new Map(lines.map((line) => [line.requestId, line]));
    for (const requestId of requestIds) {
      expect(logged.get(requestId)).toMatchObject({ message: 'request', path: '/v2/liveness', status: 200 });
    }
    expect(lines.at(-1)).toMatchObject({ level: 'info', message: 'stopped', signal: 'SIGTERM' });
  });
});
