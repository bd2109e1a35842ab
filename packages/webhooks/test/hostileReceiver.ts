import { type AddressInfo, createServer, type Socket } from 'node:net';

/**
 * How a hostile receiver answers, by the path it is sent to (docs/webhooks.md#safety says what the
 * sender does with each):
 * - `nul`: 500, a body with NUL bytes in it; `invalid-utf8`: 500, bytes that are not UTF-8;
 * - `huge`: 200 and 16 MiB of body; `endless`: 200 and a chunked body that never ends;
 * - `trickle`: 200, then one byte of body every 100 ms; `slowloris`: the status line one byte every
 *   200 ms, the headers never finished; `hang`: reads the request and never answers;
 * - `garbage`: bytes that are not HTTP, then closes; `huge-headers`: a 200 with 1 MiB of headers;
 * - `reset`: closes the connection without a word; `redirect`: 302 to its own `/redirected`;
 * - anything else: 200 `ok`.
 */
export type HostileAnswer =
  | 'nul'
  | 'invalid-utf8'
  | 'huge'
  | 'endless'
  | 'trickle'
  | 'slowloris'
  | 'hang'
  | 'garbage'
  | 'huge-headers'
  | 'reset'
  | 'redirect';

/** The NUL-bearing body `nul` answers, and the bytes `invalid-utf8` answers. */
export const NUL_BODY = Buffer.from('before\u0000after\u0000');
export const INVALID_UTF8_BODY = Buffer.from([0x6f, 0x6b, 0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0x21]);

/**
 * A receiver on a loopback port, speaking raw TCP so that it can answer what no HTTP server would:
 * every behaviour is bounded (writes stop when the sender goes, timers are cleared on close).
 */
export async function startHostileReceiver() {
  const requests = new Map<string, number>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let open = 0;
  let mostOpen = 0;

  const every = (socket: Socket, ms: number, tick: () => void) => {
    const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : tick()), ms);
    timers.add(timer);
    socket.once('close', () => {
      clearInterval(timer);
      timers.delete(timer);
    });
  };

  const answer = (socket: Socket, path: string) => {
    const how = path.slice(1) as HostileAnswer;
    const head = (status: string, headers: string[] = []) =>
      `HTTP/1.1 ${status}\r\n${[...headers, 'Connection: close'].join('\r\n')}\r\n\r\n`;
    const whole = (status: string, body: Buffer) => {
      socket.write(head(status, ['Content-Type: text/plain', `Content-Length: ${body.length}`]));
      socket.end(body);
    };
    switch (how) {
      case 'nul':
        return whole('500 Internal Server Error', NUL_BODY);
      case 'invalid-utf8':
        return whole('500 Internal Server Error', INVALID_UTF8_BODY);
      case 'huge':
        return whole('200 OK', Buffer.alloc(16 * 1024 * 1024, 'x'));
      case 'endless': {
        socket.write(head('200 OK', ['Transfer-Encoding: chunked']));
        const chunk = `4000\r\n${'y'.repeat(0x4000)}\r\n`;
        const pump = () => {
          while (!socket.destroyed && socket.write(chunk)) {}
        };
        socket.on('drain', pump);
        return pump();
      }
      case 'trickle':
        socket.write(head('200 OK', ['Content-Length: 1000000']));
        return every(socket, 100, () => socket.write('z'));
      case 'slowloris': {
        const statusLine = Buffer.from('HTTP/1.1 200 OK\r\nX-Slow: ');
        let sent = 0;
        return every(socket, 200, () =>
          socket.write(sent < statusLine.length ? statusLine.subarray(sent, ++sent) : 'a'),
        );
      }
      case 'hang':
        return;
      case 'garbage':
        return socket.end(Buffer.from('\u0000\u0001\u0002 this is not HTTP \u00ff\r\n\r\n'));
      case 'huge-headers':
        return socket.end(
          head(
            '200 OK',
            Array.from({ length: 1024 }, (_, i) => `X-Pad-${i}: ${'p'.repeat(1000)}`),
          ),
        );
      case 'reset':
        return socket.destroy();
      case 'redirect':
        socket.write(head('302 Found', [`Location: http://127.0.0.1:${port}/redirected`, 'Content-Length: 0']));
        return socket.end();
      default:
        return whole('200 OK', Buffer.from('ok'));
    }
  };

  const server = createServer((socket) => {
    sockets.add(socket);
    open++;
    mostOpen = Math.max(mostOpen, open);
    socket.on('error', () => {});
    socket.once('close', () => {
      sockets.delete(socket);
      open--;
    });
    let received = '';
    let answered = false;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const headersEnd = received.indexOf('\r\n\r\n');
      if (answered || headersEnd < 0) return;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(received)?.[1] ?? 0);
      if (received.length < headersEnd + 4 + length) return;
      answered = true;
      const path = received.slice(0, received.indexOf('\r\n')).split(' ')[1] ?? '/';
      requests.set(path, (requests.get(path) ?? 0) + 1);
      answer(socket, path);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path: HostileAnswer | string) => `http://127.0.0.1:${port}/${path.replace(/^\//, '')}`,
    /** How many requests reached a path (`/nul`, …). */
    requestsTo: (path: string) => requests.get(path) ?? 0,
    /** Connections the sender holds open right now. */
    openConnections: () => open,
    /** The most connections the sender held open at once. */
    mostOpenConnections: () => mostOpen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export type HostileReceiver = Awaited<ReturnType<typeof startHostileReceiver>>;
