import { TooManyRequestsErrorResponse, type UnkeyError } from '@unkey/api/models/errors';
import { expect } from 'vitest';

// biome-ignore lint/suspicious/noExplicitAny: error classes take different constructor arguments
type ErrorClass<E> = abstract new (...args: any[]) => E;

/**
 * The error `call` rejects with, after checking that the SDK raised it as `errorClass` for `status`:
 * the typed error a caller of the SDK would catch.
 */
export async function rejection<E extends UnkeyError>(
  call: Promise<unknown>,
  errorClass: ErrorClass<E>,
  status: number,
): Promise<E> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a ${status}, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(errorClass);
  const error = outcome.error as E;
  expect(error.statusCode).toBe(status);
  return error;
}

/**
 * A 429 as @unkey/api 2.x delivers it from Keyplane: its typed TooManyRequestsErrorResponse, which
 * the SDK raises only for an `application/problem+json` answer, as Keyplane sends every 429
 * (docs/contract.md, SDK compatibility).
 */
export async function expectWorkspaceRateLimited(call: Promise<unknown>): Promise<void> {
  const error = await rejection(call, TooManyRequestsErrorResponse, 429);
  expect(error.headers.get('retry-after')).toEqual(expect.any(String));
  expect(error.error.status).toBe(429);
  expect(problemType(error)).toBe('user/too_many_requests/workspace_rate_limited');
}

/** The `type` of a problem, without Keyplane's configurable base URL. */
export function problemType(error: { error: { type: string } }): string {
  return new URL(error.error.type).pathname.replace(/^\/errors\//, '');
}

/** Every item of an SDK list, walked page by page with the SDK's own paginator (`for await`). */
export async function everyItem<T>(
  pages: AsyncIterable<{ result: { data: T[] } }>,
): Promise<{ items: T[]; pageCount: number }> {
  const items: T[] = [];
  let pageCount = 0;
  for await (const page of pages) {
    items.push(...page.result.data);
    pageCount++;
  }
  return { items, pageCount };
}
