import { describe, expect, it } from 'vitest';
import { AnalyticsConcurrency } from './analyticsConcurrency.ts';
import { DomainError } from './errors.ts';

function deferred() {
  let resolve: () => void = () => {};
  let reject: (error: Error) => void = () => {};
  const promise = new Promise<void>((onValue, onError) => {
    resolve = onValue;
    reject = onError;
  });
  return { promise, resolve, reject };
}

describe('AnalyticsConcurrency', () => {
  it('refuses a workspace past its bound with 429 query_concurrency_exceeded, and no other workspace', async () => {
    const concurrency = new AnalyticsConcurrency(2);
    const first = deferred();
    const second = deferred();
    const running = [concurrency.run('ws_a', () => first.promise), concurrency.run('ws_a', () => second.promise)];
    const refused = await concurrency.run('ws_a', async () => 'ran').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ status: 429, type: 'user/too_many_requests/query_concurrency_exceeded' });
    expect(await concurrency.run('ws_b', async () => 'ran')).toBe('ran');
    first.resolve();
    second.resolve();
    await Promise.all(running);
  });

  it('gives the slot back when a query ends, however it ends', async () => {
    const concurrency = new AnalyticsConcurrency(1);
    const failing = deferred();
    const running = concurrency.run('ws_a', () => failing.promise);
    await expect(concurrency.run('ws_a', async () => 'ran')).rejects.toThrow('1 analytics query running');
    failing.reject(new Error('timed out'));
    await expect(running).rejects.toThrow('timed out');
    expect(await concurrency.run('ws_a', async () => 'ran')).toBe('ran');
  });
});
