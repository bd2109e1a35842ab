import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { LogFields } from '../src/log.ts';
import { useWorkspace } from './fixtures.ts';
import { useApi } from './harness.ts';

// A client that hangs up mid-request is no failure of the server: one 499 request line, no error, no stack.
const lines: { level: string; message: string; fields: LogFields }[] = [];
const api = useApi({
  logger: {
    info: (message, fields = {}) => lines.push({ level: 'info', message, fields }),
    error: (message, fields = {}) => lines.push({ level: 'error', message, fields }),
    request: (fields) => lines.push({ level: 'info', message: 'request', fields: { ...fields } }),
  },
});
const workspace = useWorkspace(api);

/** Sends the headers and part of a 100-byte body, then closes the connection. */
async function hangUpMidBody(path: string): Promise<void> {
  const socket = connect(Number(new URL(api.url).port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
      `Authorization: Bearer ${workspace.rootKey}\r\nContent-Length: 100\r\n\r\n{"name":`,
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
}

async function untilLogged(count: number): Promise<void> {
  for (let waited = 0; lines.length < count && waited < 5000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a client that closes the connection mid-request', () => {
  it.each(['/v2/apis.createApi', '/trpc/apis.createApi'])(
    'is logged once as 499 on %s, not as an error',
    async (path) => {
      lines.length = 0;
      const clients = 20;
      await Promise.all(Array.from({ length: clients }, () => hangUpMidBody(path)));
      await untilLogged(clients);
      expect(lines).toHaveLength(clients);
      for (const line of lines) {
        expect(line.level).toBe('info');
        expect(line.fields).toMatchObject({ path, status: 499 });
        expect(line.fields.error).toBeUndefined();
      }
    },
  );
});
