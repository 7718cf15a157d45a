// Both of the ledger's backends for a test that pins an interleaving on each: a fresh lowdb store and a fresh
// PostgreSQL database, each closed before the next test and after the file; and a gate to hold one step until another
// is done.
import { afterAll, beforeEach } from 'vitest';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from './engine.ts';
import { postgresAvailable } from './postgres.ts';
import { freshStore } from './postgres-store.ts';

/** [name, whether it can run here, open] for describe.each; call it at the top of the file. */
export function ledgerBackends() {
  const closers: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  // Before the next test, not after this one: a file's engines stop after each test (sandboxWithEngines), and its
  // stores must outlive them. Kept to the file's end, a file's PostgreSQL stores (up to 15 connections each) and the
  // other worker's reached the server's limit of 100 clients.
  beforeEach(closeAll);
  afterAll(closeAll);
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
