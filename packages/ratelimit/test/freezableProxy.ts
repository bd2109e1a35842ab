import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

export interface FreezableProxy {
  url: string;
  /** Holds Redis replies back, like a stalled network, without affecting other Redis clients. */
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startFreezableProxy(upstreamPort: number): Promise<FreezableProxy> {
  let frozen = false;
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
    client.on('data', (chunk) => upstream.write(chunk));
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
