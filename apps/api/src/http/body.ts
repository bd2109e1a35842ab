import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {}

/**
 * The body of a Node request as text, refusing more than `limit` bytes. Reading the
 * IncomingMessage directly avoids turning every body into a web stream.
 */
export function readIncomingBody(stream: IncomingMessage, limit: number): Promise<string> {
  if (Number(stream.headers['content-length']) > limit) return Promise.reject(new BodyTooLargeError());
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

/** The same for a web Request (in-process calls through `app.request`). */
export async function readWebBody(request: Request, limit: number): Promise<string> {
  if (Number(request.headers.get('content-length')) > limit) throw new BodyTooLargeError();
  const body = await request.arrayBuffer();
  if (body.byteLength > limit) throw new BodyTooLargeError();
  return Buffer.from(body).toString('utf8');
}
