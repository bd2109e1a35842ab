import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

/** A proxy in front of Redis for one test's clients: it sees only their traffic. */
export interface RedisProxy {
  url: string;
  /** The names of the commands its clients sent so far, in order and in lower case. */
  commands: string[];
  /** Holds Redis replies back, like a stalled network, without affecting other Redis clients. */
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startRedisProxy(upstreamPort: number): Promise<RedisProxy> {
  let frozen = false;
  const commands: string[] = [];
  const heldReplies: Array<{ client: Socket; chunk: Buffer }> = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    const readCommands = commandReader((name) => commands.push(name));
    client.on('data', (chunk: Buffer) => {
      readCommands(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (frozen) heldReplies.push({ client, chunk });
      else client.write(chunk);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('Proxy has no TCP address');

  return {
    url: `redis://127.0.0.1:${address.port}`,
    commands,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const { client, chunk } of heldReplies.splice(0)) client.write(chunk);
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/**
 * Reads a client's stream of RESP commands (arrays of bulk strings, as ioredis sends them) chunk by
 * chunk, and reports each command's name once the whole command has arrived.
 */
function commandReader(onCommand: (name: string) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (let command = nextCommand(pending); command; command = nextCommand(pending)) {
      onCommand(command.name);
      pending = pending.subarray(command.length);
    }
  };
}

/** The first complete command in `buffer`: its name and its length in bytes; undefined if it is not all there yet. */
function nextCommand(buffer: Buffer): { name: string; length: number } | undefined {
  let offset = 0;
  const line = () => {
    const end = buffer.indexOf('\r\n', offset);
    if (end === -1) return undefined;
    const text = buffer.toString('latin1', offset + 1, end);
    offset = end + 2;
    return Number(text);
  };
  const parts = line();
  if (parts === undefined) return undefined;
  let name = '';
  for (let part = 0; part < parts; part++) {
    const size = line();
    if (size === undefined || buffer.length < offset + size + 2) return undefined;
    if (part === 0) name = buffer.toString('utf8', offset, offset + size).toLowerCase();
    offset += size + 2;
  }
  return { name, length: offset };
}
