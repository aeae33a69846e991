// One thing (a started service, a receiver) for the tests of the enclosing suite (or file):
// started before them, stopped after. The returned object stands for it once it is started:
// its properties read and set through, its methods bound to it.
import { after, before } from 'node:test';

export function perSuite<T extends object>(what: string, start: () => Promise<T>, stop: (started: T) => Promise<void>): T {
  let current: T | undefined;
  before(async () => {
    current = await start();
  });
  after(async () => {
    if (current !== undefined) await stop(current);
  });
  const started = (): T => {
    if (current === undefined) throw new Error(`the suite ${what} is used before it started`);
    return current;
  };
  return new Proxy({} as T, {
    get(_target, property) {
      const value: unknown = Reflect.get(started(), property);
      return typeof value === 'function' ? value.bind(current) : value;
    },
    set(_target, property, value) {
      return Reflect.set(started(), property, value);
    },
  });
}
