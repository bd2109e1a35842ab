import {
  accountSignInThrottled,
  accountSignInThrottleKey,
  DomainError,
  SIGN_IN_FAILURES_ALLOWED,
  secondsUntil,
  signInThrottled,
  signInThrottleKey,
} from '@keyplane/core';
import type { Context } from '../context.ts';
import type { Services } from '../services.ts';

/** A refund this close to the end of the window it was counted in could land in the next one. */
const REFUND_MARGIN_MS = 1000;

/** One count of failed sign-ins: where it is kept, under which key, and what refusing says. */
interface FailureCount {
  quota: Services['signInThrottle'];
  key: string;
  refused: (retryAfterSeconds: number) => DomainError;
}

/**
 * Runs a sign-in's checks, counting every attempt before it runs, so that parallel attempts cannot
 * all be checked: past the allowance an attempt is refused at once (429) and nothing it presented
 * is looked at. An attempt that was not refused for what it presented (401, 403) is given back.
 */
async function countingFailures<T>(ctx: Context, count: FailureCount, signIn: () => Promise<T>): Promise<T> {
  const counted = await count.quota.consume(count.key, SIGN_IN_FAILURES_ALLOWED);
  if (!counted.passed) throw count.refused(secondsUntil(counted.resetMs, 0));
  const windowEnds = Date.now() + counted.resetMs;
  let failed = false;
  try {
    return await signIn();
  } catch (error) {
    failed = error instanceof DomainError && (error.status === 401 || error.status === 403);
    throw error;
  } finally {
    if (!failed && Date.now() < windowEnds - REFUND_MARGIN_MS) {
      // Not given back, an attempt only counts against the caller: no reason to fail the sign-in.
      await count.quota
        .refund(count.key, SIGN_IN_FAILURES_ALLOWED)
        .catch((error: unknown) =>
          ctx.services.reportError('a sign-in attempt could not be given back', error, ctx.requestId),
        );
    }
  }
}

/**
 * Failed sign-ins counted against the caller's address (or its IPv6 /64): every dashboard sign-in,
 * by root key or by account. Without an address nothing is counted.
 */
export function throttlingFailures<T>(ctx: Context, signIn: () => Promise<T>): Promise<T> {
  if (ctx.clientAddress === undefined) return signIn();
  const count = {
    quota: ctx.services.signInThrottle,
    key: signInThrottleKey(ctx.clientAddress),
    refused: signInThrottled,
  };
  return countingFailures(ctx, count, signIn);
}

/**
 * Failed sign-ins counted against an email, whether or not it has an account, so that the answer
 * never tells which emails do (docs/team-accounts.md).
 */
export function throttlingAccountFailures<T>(ctx: Context, email: string, signIn: () => Promise<T>): Promise<T> {
  const count = {
    quota: ctx.services.team.accountSignInThrottle,
    key: accountSignInThrottleKey(email),
    refused: accountSignInThrottled,
  };
  return countingFailures(ctx, count, signIn);
}
