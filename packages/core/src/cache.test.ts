import { describe, expect, it } from 'vitest';
import { FreshnessCache } from './cache.ts';

function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  let reject: (error: Error) => void = () => {};
  const promise = new Promise<T>((onValue, onError) => {
    resolve = onValue;
    reject = onError;
  });
  return { promise, resolve, reject };
}

describe('FreshnessCache.lookUp: reads', () => {
  it('reads once for concurrent misses of one key and serves the answer from memory after', async () => {
    const cache = new FreshnessCache<string>({ ttlMs: 1000, maxEntries: 10 });
    const answer = deferred<string>();
    let reads = 0;
    const read = () => {
      reads++;
      return answer.promise;
    };
    const loads = [cache.lookUp('k', read), cache.lookUp('k', read), cache.lookUp('k', read)];
    answer.resolve('v1');
    expect(await Promise.all(loads)).toEqual(['v1', 'v1', 'v1']);
    expect(await cache.lookUp('k', read)).toBe('v1');
    expect(reads).toBe(1);
    // Counted for the metrics: one read of the source, three loads answered without one.
    expect(cache.counts).toEqual({ hits: 3, misses: 1, invalidations: 0 });
  });

  it('does not share a read that began before an invalidation, nor store its answer', async () => {
    const cache = new FreshnessCache<string>({ ttlMs: 1000, maxEntries: 10 });
    const before = deferred<string>();
    const first = cache.lookUp('k', () => before.promise);
    cache.delete('k');
    expect(cache.counts.invalidations).toBe(1);
    const second = cache.lookUp('k', async () => 'after');
    before.resolve('before');
    expect(await first).toBe('before');
    expect(await second).toBe('after');
    expect(cache.get('k')).toEqual({ value: 'after' });
  });

  it('reads again once the entry is no longer fresh', async () => {
    let now = 0;
    const cache = new FreshnessCache<string>({ ttlMs: 1000, maxEntries: 10, now: () => now });
    let reads = 0;
    const read = async () => `v${++reads}`;
    expect(await cache.lookUp('k', read)).toBe('v1');
    now = 999;
    expect(await cache.lookUp('k', read)).toBe('v1');
    now = 1000;
    expect(await cache.lookUp('k', read)).toBe('v2');
  });

  it('lets every waiter see a failed read, and tries again on the next call', async () => {
    const cache = new FreshnessCache<string>({ ttlMs: 1000, maxEntries: 10 });
    const failing = deferred<string>();
    const settled = Promise.allSettled([
      cache.lookUp('k', () => failing.promise),
      cache.lookUp('k', () => failing.promise),
    ]);
    failing.reject(new Error('database down'));
    expect((await settled).map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(await cache.lookUp('k', async () => 'back')).toBe('back');
  });
});

describe('FreshnessCache.lookUp', () => {
  it('answers a fresh value at once, counted as a hit, and a promise when the source must be read', async () => {
    let now = 0;
    const cache = new FreshnessCache<string | null>({ ttlMs: 1000, maxEntries: 10, now: () => now });
    const first = cache.lookUp('k', async () => 'v');
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe('v');
    await cache.lookUp('none', async () => null);

    expect(cache.lookUp('k', async () => 'other')).toBe('v');
    // A cached miss is a value too: the source has nothing, and need not be asked again.
    expect(cache.lookUp('none', async () => 'other')).toBeNull();
    expect(cache.counts).toEqual({ hits: 2, misses: 2, invalidations: 0 });

    now = 1000;
    const expired = cache.lookUp('k', async () => 'v2');
    expect(expired).toBeInstanceOf(Promise);
    expect(await expired).toBe('v2');
    expect(cache.counts).toEqual({ hits: 2, misses: 3, invalidations: 0 });
  });
});
