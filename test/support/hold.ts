// Holds a step of the server inside until the test releases it, as a slow step would: the test can then
// do what a client does meanwhile (go away, send more).

export interface Held {
  /** Resolves once the first call has entered. */
  inside: Promise<void>;
  /** Lets that call go on (with the original method) and resolves when it has finished. */
  release(): Promise<void>;
}

/** Replaces `target[name]` for its next call only: that call waits inside until released. */
export function hold<T extends object, K extends keyof T>(target: T, name: K): Held {
  const original = (target[name] as (...args: unknown[]) => Promise<unknown>).bind(target);
  let entered!: () => void;
  let letGo!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const released = new Promise<void>((resolve) => (letGo = resolve));
  let called: Promise<unknown> = Promise.resolve();
  (target as Record<K, unknown>)[name] = (...args: unknown[]) => {
    delete (target as Partial<T>)[name];
    entered();
    called = released.then(() => original(...args));
    return called;
  };
  return {
    inside,
    release: async () => {
      delete (target as Partial<T>)[name];
      letGo();
      await called.catch(() => undefined);
    },
  };
}
