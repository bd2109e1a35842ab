import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  id: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: { type: string; timestamp: string; data: Record<string, unknown> };
}

/** What the receiver answers a request: a status, or nothing until `release` (a hanging receiver). */
export type Answer = number | 'hang';

/**
 * A customer's webhook receiver, on a loopback port: it keeps every request it got, answers each
 * path as the test says (200 unless told otherwise), and counts how many requests of one delivery
 * (event and endpoint) it was handling at once.
 */
export async function startWebhookReceiver() {
  const received: ReceivedWebhook[] = [];
  const answers = new Map<string, (attempt: number) => Answer>();
  const attemptsById = new Map<string, number>();
  const inFlight = new Map<string, number>();
  const hanging = new Set<() => void>();
  let mostAtOnceForOneEvent = 0;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const id = String(request.headers['webhook-id']);
      const path = request.url ?? '/';
      // One event goes to every endpoint that wants it, under the same id: count per endpoint.
      const delivery = `${path} ${id}`;
      const attempt = (attemptsById.get(delivery) ?? 0) + 1;
      attemptsById.set(delivery, attempt);
      const current = (inFlight.get(delivery) ?? 0) + 1;
      inFlight.set(delivery, current);
      mostAtOnceForOneEvent = Math.max(mostAtOnceForOneEvent, current);
      const answer = answers.get(path)?.(attempt) ?? 200;
      let answered = false;
      const finish = (status: number) => {
        if (answered) return;
        answered = true;
        inFlight.set(delivery, (inFlight.get(delivery) ?? 1) - 1);
        received.push({ path, id, headers: request.headers, raw, body: JSON.parse(raw) });
        const text = status < 300 ? 'ok' : `failing on purpose ${'x'.repeat(4000)}`;
        response.writeHead(status, { 'Content-Type': 'text/plain' }).end(text);
      };
      if (answer === 'hang') {
        const release = () => finish(200);
        hanging.add(release);
        // The sender gave up (or was killed): it no longer holds this request.
        response.on('close', () => {
          hanging.delete(release);
          if (!answered) {
            answered = true;
            inFlight.set(delivery, (inFlight.get(delivery) ?? 1) - 1);
          }
        });
        return;
      }
      finish(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    port,
    received,
    /** How `path` answers each attempt of an event (1 for the first). */
    answer(path: string, how: (attempt: number) => Answer) {
      answers.set(path, how);
    },
    /** Requests the receiver holds unanswered right now. */
    hangingCount: () => hanging.size,
    /** Answers every held request with 200. */
    releaseAll() {
      for (const release of [...hanging]) release();
      hanging.clear();
    },
    mostAtOnceForOneEvent: () => mostAtOnceForOneEvent,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

/**
 * Reads `read` every 100 ms until `done` holds for its value or `timeoutMs` has passed, and answers
 * the last value: the test's own expect then says what it waited for.
 */
export async function until<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
