// A ledger store with some of its methods replaced, for tests that hold,
// slow or fail one kind of write; everything else is the store's own, bound
// to it (its methods read its private fields, which a proxy's receiver lacks).
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';

export function storeWith<S extends LedgerStore>(store: S, replaced: Partial<LedgerStore>): S {
  return new Proxy(store, {
    get: (target, name) => {
      if (typeof name === 'string' && Object.hasOwn(replaced, name)) return replaced[name as keyof LedgerStore];
      const value = Reflect.get(target, name, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
