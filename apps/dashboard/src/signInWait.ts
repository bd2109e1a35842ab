import { TRPCClientError } from '@trpc/client';
import { useEffect, useState } from 'react';

/**
 * How long a refused sign-in (429) asks to wait, in seconds, from the server's own words
 * ("… Try again in 540 s."); undefined for any other error.
 */
export function throttleSeconds(error: Error | null): number | undefined {
  if (!(error instanceof TRPCClientError) || error.data?.httpStatus !== 429) return undefined;
  const seconds = /(\d+)\s*s\b/.exec(error.message)?.[1];
  return seconds === undefined ? undefined : Number(seconds);
}

/** The seconds left of a sign-in throttle, counting down to 0 from when `error` arrived. */
export function useThrottleWait(error: Error | null): number {
  const [left, setLeft] = useState(0);
  useEffect(() => {
    const seconds = throttleSeconds(error);
    if (seconds === undefined) {
      setLeft(0);
      return;
    }
    const until = Date.now() + seconds * 1000;
    const tick = () => setLeft(Math.max(0, Math.ceil((until - Date.now()) / 1000)));
    tick();
    const timer = setInterval(tick, 1000);
    return () => clearInterval(timer);
  }, [error]);
  return left;
}

/** 540 → "9 min", 75 → "1 min 15 s", 8 → "8 s". */
export function formatWait(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  if (minutes === 0) return `${rest} s`;
  return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
}
