import type { IncomingMessage } from 'node:http';
import type { HttpBindings } from '@hono/node-server';

export class BodyTooLargeError extends Error {}

/**
 * The request body as text, refusing more than `limit` bytes. Under the Node server it reads the
 * IncomingMessage directly: going through the web Request turns every body into a web stream,
 * which costs more than the rest of a verification.
 */
interface RequestSource {
  env?: Partial<HttpBindings>;
  req: { header(name: string): string | undefined; arrayBuffer(): Promise<ArrayBuffer> };
}

export async function readBody(c: RequestSource, limit: number): Promise<string> {
  if (Number(c.req.header('content-length')) > limit) throw new BodyTooLargeError();
  const incoming = c.env?.incoming;
  if (incoming) return readStream(incoming, limit);
  const body = await c.req.arrayBuffer();
  if (body.byteLength > limit) throw new BodyTooLargeError();
  return Buffer.from(body).toString('utf8');
}

function readStream(stream: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      // Past the limit, keep draining without keeping, so the answer can still be written.
      if (!tooLarge) chunks.push(chunk);
    });
    stream.on('end', () =>
      tooLarge ? reject(new BodyTooLargeError()) : resolve(Buffer.concat(chunks).toString('utf8')),
    );
    stream.on('error', reject);
  });
}
