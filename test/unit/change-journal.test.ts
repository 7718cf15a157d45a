// The active orders' journal (lowdb): what a group commit promised survives a
// crash through the journal alone; a batch a crash cut short is ignored and
// never added to; damage before a whole batch stops the start; the crash
// between writing the partitions and emptying the journal loses nothing; an
// erasure leaves nothing of the customer in the journal; a clean stop leaves
// the partitions whole.
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { LedgerDamagedError } from '../../src/core/store/ledger-store.ts';
import { nodeIo, type LedgerIo } from '../../src/core/store/lowdb/ledger-io.ts';
import { LowdbStore, type LowdbStoreOptions } from '../../src/core/store/lowdb/lowdb-store.ts';
import { encodeBatch, JournalDamage, readBatches } from '../../src/core/store/lowdb/change-journal.ts';
import type { OrderRecord } from '../../src/core/order-record.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';

let sequence = 0;
const keyOf = (orderId: string) => `testshop:shop-1:${orderId}`;

async function fold(store: LowdbStore, events: OrderEvent[]): Promise<void> {
  await store.accept({
    key: `j-${++sequence}`,
    aliases: [],
    receivedAt: new Date().toISOString(),
    events,
    retry: null,
  });
  const claimed = await store.claimInbox('me', 100);
  await store.commitIntake(claimed.map((each) => ({ entryKey: each.key, events: each.events ?? [] })));
}

/** Saves every due order as earned, as a worker whose earns succeeded would. */
async function earnAll(store: LowdbStore): Promise<void> {
  for (const record of await store.claimDue('me', 1_000))
    await store.saveProgress(
      { ...record, dueAt: null, target: { state: 'earned' } },
      { owner: 'me', release: true, leaseMs: 0 },
    );
}

async function opened(options: LowdbStoreOptions): Promise<LowdbStore> {
  const store = new LowdbStore(options);
  await store.open();
  return store;
}

const journalOf = (dataDir: string) => readFileSync(join(dataDir, 'orders', 'journal.jsonl'), 'utf8');
const partitionsOf = (dataDir: string) =>
  readdirSync(join(dataDir, 'orders'))
    .filter((name) => /^active-\d+\.json$/.test(name))
    .map((name) => readFileSync(join(dataDir, 'orders', name), 'utf8'))
    .join('');
const states = async (store: LowdbStore, orderIds: string[]) =>
  Promise.all(
    orderIds.map(async (id) => {
      const record = await store.getOrder(keyOf(id));
      return record ? (record.target?.state ?? 'folded') : 'missing';
    }),
  );

/** node:fs, but the next I/O whose description matches fails once, as a full disk would. */
function failingIo() {
  let failing: RegExp | undefined;
  const maybeFail = (what: string) => {
    if (failing?.test(what)) {
      failing = undefined;
      throw Object.assign(new Error(`ENOSPC: no space left on device, ${what}`), { code: 'ENOSPC' });
    }
  };
  const io: LedgerIo = {
    ...nodeIo,
    writeNewFile: async (path, text, sync) => (maybeFail(`write ${path}`), nodeIo.writeNewFile(path, text, sync)),
    openAppend: async (path) => {
      const file = await nodeIo.openAppend(path);
      return {
        append: async (text, sync) => (maybeFail(`append ${path}`), file.append(text, sync)),
        close: () => file.close(),
      };
    },
    rename: async (from, to) => (maybeFail(`rename ${to}`), nodeIo.rename(from, to)),
  };
  return { io, failNext: (pattern: RegExp) => (failing = pattern) };
}

describe('the journal format', () => {
  const record = (key: string) => ({ key, version: 1 }) as unknown as OrderRecord;
  const batch = (...keys: string[]) =>
    encodeBatch(keys, (key: string) => (key.startsWith('gone') ? undefined : record(key)));

  it('applies whole batches in order, an order as its last entry says', () => {
    const text = batch('a', 'b') + batch('gone-a') + batch('b');
    expect(readBatches(text)).toEqual([
      { key: 'a', value: record('a') },
      { key: 'b', value: record('b') },
      { key: 'gone-a', gone: true },
      { key: 'b', value: record('b') },
    ]);
  });

  it('leaves out the last batch when a crash cut it short, wherever it was cut', () => {
    const whole = batch('a');
    const cut = batch('b', 'c');
    for (let at = 0; at < cut.length; at++)
      expect(readBatches(whole + cut.slice(0, at)), `cut at ${at}`).toEqual([{ key: 'a', value: record('a') }]);
  });

  it('stops on a line it cannot read that whole batches follow, and on a batch that does not add up', () => {
    expect(() => readBatches(batch('a') + '{"k":"b","v":{"ke\n' + batch('b'))).toThrow(JournalDamage);
    expect(() => readBatches('{"k":"a","v":1}\n{"c":2}\n')).toThrow(JournalDamage);
    // Bytes a crash left after the last whole batch, with no whole batch after them, are a cut, not damage.
    expect(readBatches(batch('a') + '\0\0\0\n{"k":')).toEqual([{ key: 'a', value: record('a') }]);
  });
});

describe('the lowdb store with its journal', () => {
  it('keeps what it promised through a crash from the journal alone, and writes it into the partitions at the next start', async () => {
    const dataDir = tempDataDir();
    const store = await opened({ dataDir });
    await fold(
      store,
      ['7001', '7002', '7003'].map((orderId) => orderEvent({ orderId, facts: ['paid'] })),
    );
    await earnAll(store);
    // The saves went to the journal: the partitions were not rewritten for them.
    expect(journalOf(dataDir)).toContain('"earned"');
    expect(partitionsOf(dataDir)).not.toContain('"earned"');
    // The process dies: no clean stop.
    const reopened = await opened({ dataDir });
    expect(await states(reopened, ['7001', '7002', '7003'])).toEqual(['earned', 'earned', 'earned']);
    expect(journalOf(dataDir)).toBe('');
    expect(partitionsOf(dataDir)).toContain('"earned"');
    await reopened.close();
  });

  it('ignores a batch a crash cut short, and adds nothing after it', async () => {
    const dataDir = tempDataDir();
    const store = await opened({ dataDir });
    await fold(store, [orderEvent({ orderId: '7101', facts: ['paid'] })]);
    await earnAll(store);
    // A crash in the middle of the next append: half a batch, never acknowledged.
    appendFileSync(
      join(dataDir, 'orders', 'journal.jsonl'),
      '{"k":"testshop:shop-1:7102","v":{"key":"testshop:shop-1:7102","facts":["pa',
    );
    const reopened = await opened({ dataDir });
    expect(await states(reopened, ['7101', '7102'])).toEqual(['earned', 'missing']);
    await fold(reopened, [orderEvent({ orderId: '7103', facts: ['paid'] })]);
    const again = await opened({ dataDir });
    expect(await states(again, ['7101', '7102', '7103'])).toEqual(['earned', 'missing', 'folded']);
    await again.close();
  });

  it('refuses to start on a journal damaged before a whole batch, naming the file', async () => {
    const dataDir = tempDataDir();
    const store = await opened({ dataDir });
    await fold(store, [orderEvent({ orderId: '7201', facts: ['paid'] })]);
    const journal = join(dataDir, 'orders', 'journal.jsonl');
    writeFileSync(journal, `{"k":"x","v":{"key":"x"\n${journalOf(dataDir)}`);
    const error = await opened({ dataDir }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LedgerDamagedError);
    expect((error as Error).message).toContain(journal);
  });

  it('loses nothing it promised when a crash falls between writing the partitions and emptying the journal', async () => {
    const dataDir = tempDataDir();
    const control = failingIo();
    const store = await opened({ dataDir, io: control.io });
    await fold(
      store,
      ['7301', '7302'].map((orderId) => orderEvent({ orderId, facts: ['paid'] })),
    );
    await earnAll(store);
    await fold(store, [orderEvent({ orderId: '7301', deliveryId: 'refund', facts: ['fullyRefunded'] })]);
    expect(journalOf(dataDir)).toContain('fullyRefunded');
    // The stop writes the partitions; emptying the journal then fails, and the process dies.
    control.failNext(/rename .*journal\.jsonl$/);
    await expect(store.close()).rejects.toThrow(/ENOSPC/);
    expect(partitionsOf(dataDir)).toContain('fullyRefunded');
    // The journal, applied again over partitions that hold it already, leaves each order as it was.
    const reopened = await opened({ dataDir });
    expect(await states(reopened, ['7301', '7302'])).toEqual(['earned', 'earned']);
    expect((await reopened.getOrder(keyOf('7301')))?.facts).toEqual(['paid', 'fullyRefunded']);
    expect(Object.values((await reopened.countOrders()).byState).reduce((sum, count) => sum + count, 0)).toBe(2);
    await reopened.close();
  });

  it('begins the journal afresh after an append failed, so no batch follows a broken one', async () => {
    const dataDir = tempDataDir();
    const control = failingIo();
    const store = await opened({ dataDir, io: control.io });
    await fold(store, [orderEvent({ orderId: '7401', facts: ['paid'] })]);
    control.failNext(/append /);
    await expect(earnAll(store)).rejects.toThrow(/ENOSPC/);
    // The failed append may have left part of its batch; the next round writes the partitions instead.
    appendFileSync(join(dataDir, 'orders', 'journal.jsonl'), '{"k":"half');
    await fold(store, [orderEvent({ orderId: '7402', facts: ['paid'] })]);
    expect(journalOf(dataDir)).toBe('');
    const reopened = await opened({ dataDir });
    // The save whose append failed stayed in memory, and the partitions took it with the next round.
    expect(await states(reopened, ['7401', '7402'])).toEqual(['earned', 'folded']);
    await reopened.close();
  });

  it('holds the journal open between rounds, closed before it is emptied, and what follows reaches the new one', async () => {
    const dataDir = tempDataDir();
    const journalPath = join(dataDir, 'orders', 'journal.jsonl');
    let opens = 0;
    let open = 0;
    const openAtRename: number[] = [];
    const io: LedgerIo = {
      ...nodeIo,
      openAppend: async (path) => {
        const file = await nodeIo.openAppend(path);
        if (path !== journalPath) return file;
        opens++;
        open++;
        return { append: (text, sync) => file.append(text, sync), close: () => (open--, file.close()) };
      },
      rename: async (from, to) => {
        if (to === journalPath) openAtRename.push(open);
        return nodeIo.rename(from, to);
      },
    };
    // A journal limit of a few batches: it is emptied, and begun again, several times over.
    const store = await opened({ dataDir, io, activeJournalLimit: 3_000 });
    const ids = Array.from({ length: 12 }, (_, i) => String(7800 + i));
    for (const orderId of ids) await fold(store, [orderEvent({ orderId, facts: ['paid'] })]);
    await earnAll(store);
    expect(openAtRename.length).toBeGreaterThan(1);
    expect(openAtRename.every((count) => count === 0)).toBe(true);
    // One open per journal begun, not one per round.
    expect(opens).toBeLessThanOrEqual(openAtRename.length + 1);
    // The process dies: every round's batch is in the journal now in use, or in the partitions.
    const reopened = await opened({ dataDir });
    expect(await states(reopened, ids)).toEqual(ids.map(() => 'earned'));
    await reopened.close();
    await store.close().catch(() => undefined);
    expect(open).toBe(0);
  });

  it('leaves nothing of an erased customer in the journal', async () => {
    const dataDir = tempDataDir();
    const store = await opened({ dataDir });
    await fold(store, [orderEvent({ orderId: '7501', facts: ['paid'] })]);
    await earnAll(store);
    expect(journalOf(dataDir)).toContain('ada@example.com');
    const match = { emails: ['ada@example.com'], phones: [], orderIds: [] };
    await store.eraseCustomer(match, (stored) => ({ about: false, redacted: stored }), new Date().toISOString());
    expect(journalOf(dataDir)).not.toContain('ada@example.com');
    expect(partitionsOf(dataDir)).not.toContain('ada@example.com');
    await store.close();
  });

  it('keeps lp_orderid registrations through a crash from their journal, and the first owner keeps its id', async () => {
    const dataDir = tempDataDir();
    const store = await opened({ dataDir });
    expect(await store.claimLpOrderId('7701', keyOf('7701'))).toBe(keyOf('7701'));
    const registry = join(dataDir, 'lp-order-ids');
    expect(readFileSync(join(registry, 'journal.jsonl'), 'utf8')).toContain(keyOf('7701'));
    expect(readdirSync(registry).filter((name) => name.endsWith('.json'))).toEqual([]);
    // The process dies: another store's order with the same lp_orderid is still refused it.
    const reopened = await opened({ dataDir });
    expect(await reopened.claimLpOrderId('7701', 'woocommerce:other:7701')).toBe(keyOf('7701'));
    expect(readFileSync(join(registry, 'journal.jsonl'), 'utf8')).toBe('');
    await reopened.close();
  });

  it('stops cleanly with the partitions whole and the journal empty', async () => {
    const dataDir = tempDataDir();
    const store = await opened({ dataDir });
    await fold(store, [orderEvent({ orderId: '7601', facts: ['paid'] })]);
    await earnAll(store);
    await store.close();
    expect(journalOf(dataDir)).toBe('');
    expect(partitionsOf(dataDir)).toContain('"earned"');
  });
});
