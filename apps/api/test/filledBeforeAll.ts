/**
 * The values a per-file fixture fills in from its `beforeAll` and its tests read: `fill` stores them;
 * `read` answers them, and throws naming the fixture when a file reads them before its `beforeAll`
 * ran; `fields` makes an object whose properties read them, for the fixture to return (add methods
 * to it with `Object.assign`, never getters: it reads a getter once, at once).
 */
export function filledBeforeAll<T extends object>(fixture: string) {
  let values: T | undefined;
  const read = (): T => {
    if (!values) throw new Error(`${fixture}() is used before its beforeAll ran`);
    return values;
  };
  return {
    fill(filled: T) {
      values = filled;
    },
    read,
    fields<K extends keyof T>(...names: K[]): Pick<T, K> {
      const object = {} as Pick<T, K>;
      for (const name of names) Object.defineProperty(object, name, { get: () => read()[name], enumerable: true });
      return object;
    },
  };
}
