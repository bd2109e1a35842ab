import { useEffect, useState } from 'react';

/** `value` once it has stopped changing for `delayMs`: search-as-you-type asks the server once per pause, not per key. */
export function useDebouncedValue<TValue>(value: TValue, delayMs = 250): TValue {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
