/** Calls a /v2 procedure as the bench's root key and answers its `data`. */
export type BenchCall = <T>(procedure: string, body: unknown) => Promise<T>;

/**
 * The keys.verifyKey cases every bench measures, by name: a key with no limits, one with credits and
 * a rate limit (both far from running out), and a key that does not exist.
 */
export async function createVerifyCases(call: BenchCall): Promise<[name: string, key: string][]> {
  const { apiId } = await call<{ apiId: string }>('apis.createApi', { name: 'bench' });
  const plain = await call<{ key: string }>('keys.createKey', { apiId });
  const metered = await call<{ key: string }>('keys.createKey', {
    apiId,
    credits: { remaining: 1_000_000_000_000 },
    ratelimits: [{ name: 'requests', limit: 1_000_000_000, duration: 60_000, autoApply: true }],
  });
  return [
    ['verifyKey: valid key, no limits', plain.key],
    ['verifyKey: credits + one rate limit', metered.key],
    ['verifyKey: unknown key', 'sk_unknown_garbage'],
  ];
}
