// Both of the ledger's backends for a test that pins an interleaving on each: a fresh lowdb store and a fresh
// PostgreSQL database, each closed after the file; and a gate to hold one step until another is done.
import { afterAll } from 'vitest';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from './engine.ts';
import { postgresAvailable } from './postgres.ts';
import { freshStore } from './postgres-store.ts';

/** [name, whether it can run here, open] for describe.each; call it at the top of the file. */
export function ledgerBackends() {
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });
  const lowdb = async (): Promise<LedgerStore> => {
    const store = new LowdbStore({ dataDir: tempDataDir(), settleAfterMs: 1 });
    await store.open();
    closers.push(() => store.close().catch(() => undefined));
    return store;
  };
  const postgres = async (): Promise<LedgerStore> => {
    const opened = await freshStore();
    closers.push(() => opened.close());
    return opened.store;
  };
  return [
    ['lowdb', true, lowdb],
    ['postgres', postgresAvailable(), postgres],
  ] as const;
}

/** A step held until `open()`: `opened` resolves then. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}
