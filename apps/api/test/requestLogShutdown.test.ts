import { createTestDatabase, type TestDatabase } from '@keyplane/db/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { spawnServer } from '../../../bench/server.ts';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(inject('databaseUrl'), inject('templateDatabase'));
});

afterAll(async () => {
  await database.drop();
});

describe('a server stopped with SIGTERM', () => {
  it('has written the line of every request it answered, and its last line, before it exits', async () => {
    let output = '';
    const server = await spawnServer(
      { DATABASE_URL: database.url, LOG_REQUESTS: 'true' },
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
