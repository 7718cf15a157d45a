// The lowdb store under the exact interleavings and faults that once lost
// orders or stranded work (issue 17, items 1 to 6), each made to happen on
// purpose through the store's I/O seam: a reader of a settled chunk while a
// settle rolls over, an index file let go while changed, a write that fails
// once, a round of writes cut short, a file the system will not read, and a
// claim among a large deferred backlog.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InboxEntry } from '../../src/core/delivery.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import { LedgerUnreadableError } from '../../src/core/store/ledger-store.ts';
import { nodeIo, type LedgerIo } from '../../src/core/store/lowdb/ledger-io.ts';
import { LowdbStore, type LowdbStoreOptions } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { raw } from '../helpers/raw-records.ts';

let sequence = 0;
const event = (orderId: string): OrderEvent => orderEvent({ orderId, facts: ['placed'] });
const keyOf = (orderId: string) => `testshop:shop-1:${orderId}`;
const entry = (events: OrderEvent[]): InboxEntry => ({
  key: `entry-${++sequence}`,
  aliases: [],
  receivedAt: new Date().toISOString(),
  events,
  retry: null,
});

async function fold(store: LowdbStore, orderIds: string[]): Promise<void> {
  await store.accept(entry(orderIds.map(event)));
  const claimed = await store.claimInbox('me', 1_000);
  await store.commitIntake(claimed.map((each) => ({ entryKey: each.key, events: each.events ?? [] })));
}

/** Saves every due order as done, as a worker with nothing to call would. */
async function finish(store: LowdbStore): Promise<void> {
  for (let due = await store.claimDue('me', 1_000); due.length > 0; due = await store.claimDue('me', 1_000)) {
    for (const record of due)
      await store.saveProgress(
        { ...record, dueAt: null, target: { state: 'earned' } },
        { owner: 'me', release: true, leaseMs: 0 },
      );
  }
}

/** node:fs, where a test can hold a kind of I/O at a gate, or make the next writes fail. */
function controlledIo() {
  const gates: Array<{ matches: (what: string) => boolean; opened: Promise<void>; reached: () => void }> = [];
  let failures = 0;
  let failingOnly: RegExp | undefined;
  const check = async (what: string) => {
    const gate = gates.find((each) => each.matches(what));
    if (gate) {
      gates.splice(gates.indexOf(gate), 1);
      gate.reached();
      await gate.opened;
    }
  };
  const failing = async (what: string) => {
    await check(what);
    if (failures > 0 && (!failingOnly || failingOnly.test(what))) {
      failures--;
      throw Object.assign(new Error(`ENOSPC: no space left on device, ${what}`), { code: 'ENOSPC' });
    }
  };
  const io: LedgerIo = {
    readFile: async (path) => (await check(`read ${path}`), nodeIo.readFile(path)),
    writeNewFile: async (path, text, sync) => (await failing(`write ${path}`), nodeIo.writeNewFile(path, text, sync)),
    openAppend: async (path) => {
      await check(`open ${path}`);
      const file = await nodeIo.openAppend(path);
      return {
        append: async (text, sync) => (await failing(`append ${path}`), file.append(text, sync)),
        close: () => file.close(),
      };
    },
    rename: async (from, to) => (await failing(`rename ${to}`), nodeIo.rename(from, to)),
    remove: nodeIo.remove,
    syncDirectory: async (path) => (await failing(`sync ${path}`), nodeIo.syncDirectory(path)),
    readdir: nodeIo.readdir,
    stat: nodeIo.stat,
  };
  return {
    io,
    /** The next I/O matching the pattern waits until open() is called; reached resolves when it got there. */
    hold(pattern: RegExp) {
      let open!: () => void;
      let reached!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      const arrived = new Promise<void>((resolve) => (reached = resolve));
      gates.push({ matches: (what) => pattern.test(what), opened, reached });
      return { open, reached: arrived };
    },
    /** The next writes (those matching the pattern, if one is given) fail with ENOSPC. */
    failNext(count: number, only?: RegExp) {
      failures = count;
      failingOnly = only;
    },
  };
}

async function openStore(options: Partial<LowdbStoreOptions> & { dataDir: string }): Promise<LowdbStore> {
  const store = new LowdbStore({ settleAfterMs: 0, ...options });
  await store.open();
  return store;
}

async function missingAfterReopen(dataDir: string, orderIds: string[]): Promise<string[]> {
  const store = await openStore({ dataDir });
  const missing = [];
  for (const id of orderIds) if (!(await store.getOrder(keyOf(id)))) missing.push(id);
  await store.close();
  return missing;
}

describe('the lowdb ledger under the interleavings that once lost orders', () => {
  it('keeps a settled chunk that a reader opened while a settle was filling it (item 1)', async () => {
    const dataDir = tempDataDir();
    const control = controlledIo();
    const store = await openStore({ dataDir, io: control.io, settledChunkSize: 3, openFiles: { chunks: 1 } });
    const first = ['1001', '1002'];
    await fold(store, first);
    await finish(store);
    await store.settleQuiet();
    // A settle that fills chunk 1 and rolls over to a new chunk, held where it opens that new chunk…
    const later = ['2001', '2002', '2003', '2004'];
    await fold(store, later);
    await finish(store);
    const atRollover = control.hold(/read .*settled-000002\.json$/);
    const settling = store.settleQuiet();
    await atRollover.reached;
    // …while the dashboard reads an order of chunk 1.
    await store.getOrder(keyOf('1001'));
    atRollover.open();
    await settling;
    // The next change to chunk 1 (an event for one of its orders) must not write back an older copy of it.
    await fold(store, ['1002']);
    await finish(store);
    await store.settleQuiet();
    await store.close();
    expect(await missingAfterReopen(dataDir, [...first, ...later])).toEqual([]);
  });

  it('keeps an index entry changed while another flush was landing (item 2)', async () => {
    const dataDir = tempDataDir();
    const control = controlledIo();
    const store = await openStore({ dataDir, io: control.io, openFiles: { indexFiles: 1 } });
    // A flush of an unrelated file is under way, held at its rename…
    const firstRound = control.hold(/rename .*records\/reconciliation\.json$/);
    // (The registry's change lands as a line of its journal; its index file stays changed in memory meanwhile.)
    const nextRound = control.hold(/(rename|append) .*lp-order-ids\//);
    const recordWrite = store.putRecord(raw('reconciliation'), 'testshop', { highWaterMark: null, lastRun: null });
    await firstRound.reached;
    // …when an order registers its lp_orderid: that index file waits for the next round.
    const first = store.claimLpOrderId('lp-7001', keyOf('7001'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    firstRound.open();
    await recordWrite;
    await nextRound.reached;
    // While that round is still landing, other registrations read other index files…
    const others = Array.from({ length: 8 }, (_, index) => store.claimLpOrderId(`lp-8${index}`, keyOf(`8${index}`)));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // …and a second order asks for the same lp_orderid.
    const second = store.claimLpOrderId('lp-7001', keyOf('7002'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    nextRound.open();
    expect(await first).toBe(keyOf('7001'));
    expect(await second, 'the lp_orderid was handed to a second order').toBe(keyOf('7001'));
    await Promise.all(others);
    await store.close();
    const reopened = await openStore({ dataDir });
    expect(await reopened.claimLpOrderId('lp-7001', keyOf('7003'))).toBe(keyOf('7001'));
    await reopened.close();
  });

  it('lets an order and an inbox entry be taken again after a write failed once (item 3)', async () => {
    const dataDir = tempDataDir();
    const control = controlledIo();
    const store = await openStore({ dataDir, io: control.io });
    await fold(store, ['4001']);
    const [record] = await store.claimDue('me', 10);
    control.failNext(1);
    await expect(
      store.saveProgress({ ...record!, dueAt: null }, { owner: 'me', release: false, leaseMs: 0 }),
    ).rejects.toThrow(/ENOSPC/);
    // The worker's `finally` lets go; the disk is well again.
    await store.releaseOrder('me', record!.key, new Date());
    expect((await store.claimDue('me', 10)).map((each) => each.key)).toEqual([record!.key]);

    await store.accept(entry([event('4002')]));
    const [held] = await store.claimInbox('me', 10);
    control.failNext(1);
    await expect(
      store.deferInbox('me', held!.key, {
        attempts: 1,
        firstFailureAt: new Date().toISOString(),
        retryAt: new Date().toISOString(),
        lastError: 'down',
      }),
    ).rejects.toThrow(/ENOSPC/);
    expect((await store.claimInbox('me', 10)).map((each) => each.key)).toEqual([held!.key]);
    await store.close();
  });

  it('never lets an older write of a file land after a newer one, even when a round fails (item 4)', async () => {
    const dataDir = tempDataDir();
    const control = controlledIo();
    const store = await openStore({ dataDir, io: control.io });
    await store.putRecord(raw('reconciliation'), 'a', { n: 0 });
    // Round 1: the record file's write is held at its rename, and another file of the same round fails.
    const slow = control.hold(/rename .*records\/reconciliation\.json$/);
    control.failNext(1, /adjustment/);
    const first = store.putRecord(raw('reconciliation'), 'a', { n: 1 });
    const failed = store.putRecord(raw('adjustment'), 'x', { n: 1 });
    await slow.reached;
    // Round 2 writes the record again, newer, while round 1's older copy is still on its way.
    const second = store.putRecord(raw('reconciliation'), 'a', { n: 2 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    slow.open();
    await Promise.allSettled([first, failed, second]);
    await store.close();
    const reopened = await openStore({ dataDir });
    expect(await reopened.getRecord(raw('reconciliation'), 'a')).toEqual({ n: 2 });
    await reopened.close();
  });

  it('says an unreadable ledger file is unreadable, with advice about the cause and no backup (item 5)', async () => {
    const dataDir = tempDataDir();
    const store = await openStore({ dataDir });
    await store.close();
    // A folder where the chunk directory belongs: the system answers EISDIR, whatever the user.
    mkdirSync(join(dataDir, 'orders', 'chunks.json'), { recursive: true });
    const error = await openStore({ dataDir }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(LedgerUnreadableError);
    expect((error as Error).message).toMatch(/could not be read \(EISDIR\): a folder stands where the file belongs/);
    expect((error as Error).message).not.toMatch(/copy it over|restore it from/i);
  });

  it('claims from a large deferred backlog without looking at every deferred entry (item 6)', async () => {
    const dataDir = tempDataDir();
    const store = await openStore({ dataDir, fsync: false });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    // Each deferred entry's retry time counts how often anything reads it.
    let reads = 0;
    const retry = () => ({
      attempts: 1,
      firstFailureAt: later,
      lastError: 'down',
      get retryAt() {
        reads++;
        return later;
      },
    });
    const deferred = 2_000;
    await Promise.all(
      Array.from({ length: deferred }, (_, index) => store.accept(entry([event(String(5_000_000 + index))]))),
    );
    for (
      let claimed = await store.claimInbox('me', 500);
      claimed.length > 0;
      claimed = await store.claimInbox('me', 500)
    ) {
      await Promise.all(claimed.map((each) => store.deferInbox('me', each.key, retry())));
    }
    await store.accept(entry([event('6000000')]));
    let readByClaims = 0;
    for (let round = 0; round < 50; round++) {
      reads = 0;
      const found = await store.claimInbox('me', 10);
      readByClaims += reads;
      expect(found).toHaveLength(1);
      const now = new Date().toISOString();
      await store.deferInbox('me', found[0]!.key, {
        attempts: 1,
        firstFailureAt: now,
        retryAt: now,
        lastError: 'down',
      });
    }
    expect(await store.nextInboxAt()).toBe(Date.parse(later));
    // 50 claims over 2,000 deferred entries: a scan would read 100,000 retry times.
    expect(readByClaims).toBeLessThan(100);
    await store.close();
  });
  it("reads a customer's settled order once while an event brings it back from its chunk (storefront's count)", async () => {
    const dataDir = tempDataDir();
    const control = controlledIo();
    const options = { dataDir, io: control.io, settledChunkSize: 2 };
    const first = await openStore(options);
    const someoneElse = (orderId: string) =>
      orderEvent({ orderId, facts: ['placed'], customer: { name: 'Bo', email: 'bo@example.com', mobile: null } });
    // Chunk 1: Ada's 4001 and Bo's 4002; chunk 2: Ada's 4003 and Bo's 4004. Read again from disk after a restart.
    for (const pair of [
      ['4001', '4002'],
      ['4003', '4004'],
    ]) {
      await first.accept(entry([event(pair[0]!), someoneElse(pair[1]!)]));
      const claimed = await first.claimInbox('me', 10);
      await first.commitIntake(claimed.map((each) => ({ entryKey: each.key, events: each.events ?? [] })));
      await finish(first);
      await first.settleQuiet();
    }
    await first.close();
    const store = await openStore(options);
    // The count reads chunk 2 first (newest) and is held there, while an event for 4001 brings it back from chunk 1.
    const atChunk2 = control.hold(/read .*settled-000002\.json$/);
    const reading = store.customerOrders({ email: 'ada@example.com' });
    await atChunk2.reached;
    await fold(store, ['4001']);
    atChunk2.open();
    expect((await reading).map((order) => order.orderId).sort()).toEqual(['4001', '4003']);
    await store.close();
  });

  it('counts an order a failed write left both active and settled once, and makes it one again after a crash', async () => {
    const dataDir = tempDataDir();
    const control = controlledIo();
    const store = await openStore({ dataDir, io: control.io });
    await fold(store, ['9001', '9002']);
    await finish(store);
    await store.settleQuiet();
    // An event brings 9001 back: its active copy is written, then taking it out of its chunk and index fails (a full disk).
    control.failNext(2, /settled-000001|index/);
    await store.accept(entry([event('9001')]));
    const claimed = await store.claimInbox('me', 10);
    await expect(
      store.commitIntake(claimed.map((each) => ({ entryKey: each.key, events: each.events ?? [] }))),
    ).rejects.toThrow(/ENOSPC/);
    const total = async (opened: LowdbStore) =>
      Object.values((await opened.countOrders()).byState).reduce((sum, count) => sum + count, 0);
    expect(await total(store)).toBe(2);
    // The process dies here: no clean stop. A new one on the same files counts each order once.
    const reopened = await openStore({ dataDir });
    expect(await total(reopened)).toBe(2);
    expect((await reopened.listOrders({ page: 1, limit: 10 })).orders.map((order) => order.orderId).sort()).toEqual([
      '9001',
      '9002',
    ]);
    await reopened.close();
  });
});
