// An account's runtime (its client, rules and pause) read while this bridge
// changes the account: a read that began before the change must not be kept,
// nor handed to the orders that ask after it. Found by the merchant page's
// browser test: a setting saved from the page, and the next order earned
// under the old one, for the registry's refresh (5 s).
import { describe, expect, it } from 'vitest';
import { parseProgramSettings, programDefaults } from '../../src/accounts/program-settings.ts';
import { AccountRegistry } from '../../src/accounts/registry.ts';
import type { AccountRuntime } from '../../src/core/accounts.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import type { RecordType } from '../../src/core/store/roles/record-types.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { createLogger } from '../../src/logger.ts';
import { tempDataDir } from '../helpers/engine.ts';

/** The store, but the next read of an account record waits, once its answer is in hand, until let go. */
function holdingStore(store: LedgerStore) {
  let held: { reached: () => void; until: Promise<void> } | undefined;
  const gated = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'getRecord')
        return async (kind: RecordType<unknown>, id: string) => {
          const value = await target.getRecord(kind, id);
          const hold = kind.kind === 'account' ? held : undefined;
          if (hold) {
            held = undefined;
            hold.reached();
            await hold.until;
          }
          return value;
        };
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    store: gated,
    /** Holds the next account read; resolves `reached` when it has read, and waits for `release`. */
    holdNext() {
      let reached!: () => void;
      let release!: () => void;
      const at = new Promise<void>((resolve) => (reached = resolve));
      held = { reached, until: new Promise<void>((resolve) => (release = resolve)) };
      return { reached: at, release: () => release() };
    },
  };
}

const runtimeOf = (id: string, activity: string) =>
  ({ id, name: id, earnActivityId: activity, authPause: { stop: () => undefined } }) as unknown as AccountRuntime;

describe('an account’s runtime read while the account changes', () => {
  it('is read again when the change came during the read: the next order gets the new rules at once', async () => {
    const ledger = new LowdbStore({ dataDir: tempDataDir() });
    await ledger.open();
    const { store, holdNext } = holdingStore(ledger);
    const defaults = programDefaults();
    const parsed = parseProgramSettings({}, defaults);
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    const registry = new AccountRegistry({
      store,
      logger: createLogger({ level: 'silent' }),
      defaultAccount: runtimeOf('default', '1'),
      defaultSettings: parsed.settings,
      programDefaults: defaults,
      makeRuntime: (record, settings) => runtimeOf(record.id, settings.LOYALTY_EARN_ACTIVITY_ID),
      probe: async () => ({ status: 'connected', at: new Date().toISOString() }),
      chosenByOperator: async () => false,
      checkBaseUrl: () => undefined,
    });
    const created = await registry.create(
      { name: 'Club', baseUrl: 'https://loyalty.example', apiKey: 'key-0123456789', brandId: 'club' },
      'test',
    );
    if (!created.ok) throw new Error(created.errors.join('\n'));
    const { id } = created.value;

    // A worker asks for the account's runtime; its read has the record as it is now in hand…
    const hold = holdNext();
    const early = registry.runtime(id);
    await hold.reached;
    // …when the merchant saves a new activity from the page.
    expect((await registry.setSettings(id, { LOYALTY_EARN_ACTIVITY_ID: '7' }, 'test')).ok).toBe(true);
    hold.release();
    expect((await early)?.earnActivityId).toBe('7');
    expect((await registry.runtime(id))?.earnActivityId).toBe('7');
    await ledger.close();
  });
});
