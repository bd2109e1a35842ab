import { describe, expect, it } from 'vitest';
import { oneAtATime } from './context.ts';

describe('oneAtATime', () => {
  it('starts each call once the one before it has finished, whether it succeeded or failed', async () => {
    const inTurn = oneAtATime();
    const events: string[] = [];
    const call =
      (name: string, fails = false) =>
      async () => {
        events.push(`${name} starts`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        events.push(`${name} ends`);
        if (fails) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([inTurn(call('a')), inTurn(call('b', true)), inTurn(call('c'))]);
    expect(events).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
