import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {}

/** The client closed the connection before its request body arrived whole: nothing failed here. */
export class ClientClosedRequestError extends Error {}

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
    stream.on('end', () => {
      if (tooLarge) return reject(new BodyTooLargeError());
      // A small body comes in one chunk: decoded as it is, not copied into a new buffer first.
      resolve((chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8'));
    });
    // Node reports a client that hangs up mid-body as an 'aborted' error on the request.
    stream.on('error', (error) => reject(stream.socket?.destroyed ? new ClientClosedRequestError() : error));
  });
}
