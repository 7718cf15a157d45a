// A shop's erasure meeting intake, on both backends: a delivery intake holds while its shop is erased folds
// nothing when its step commits, and a copy of it stored again can be taken; the dedupe keys of another shop's
// waiting delivery (a store on a port under this one's name) stay, aliases too, as they stay when the dedupe
// window passes; a copy stored again is the claim's that holds it, whatever the step of the erased copy does;
// and (lowdb) an erasure whose write failed leaves the delivery where the next erasure finds it.
// Each case is one that test/property/store-model.test.ts found, here in a fixed order, to show it plainly.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InboxEntry } from '../../src/core/delivery.ts';
import type { OrderEvent } from '../../src/core/order-event.ts';
import type { LedgerStore } from '../../src/core/store/ledger-store.ts';
import { nodeIo, type LedgerIo } from '../../src/core/store/lowdb/ledger-io.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';
import { postgresAvailable } from '../helpers/postgres.ts';
import { freshStore } from '../helpers/postgres-store.ts';
import { raw } from '../helpers/raw-records.ts';

const SHOP = 'a.example';
/** Another store, whose name is this one's and a port: its body keys start with this one's prefix. */
const PORT_SHOP = 'a.example:8443';
const prefixOf = (shop: string) => `testshop:body:${shop}:`;
const keyOf = (event: OrderEvent) => `${event.platform}:${event.shop}:${event.orderId}`;

let sequence = 0;
function delivery(shop: string, key = `${prefixOf(shop)}d${++sequence}`) {
  const event = orderEvent({ shop, orderId: String(900_000 + ++sequence), facts: ['placed', 'paid'] });
  const entry: InboxEntry = {
    key,
    // The body's key, naming the shop (as Shopify's alias does).
    aliases: [`${prefixOf(shop)}body-${sequence}`],
    receivedAt: new Date().toISOString(),
    retry: null,
    events: [event],
  };
  return { event, entry };
}

interface Failing {
  remove: boolean;
  seen: boolean;
  /** The next seen file's write waits at this gate. */
  seenGate: { reached: () => void; open: Promise<void> } | undefined;
}

/** lowdb on a data directory whose inbox batch files fail to go away, or seen files to be written, while `failing` says so. */
function lowdbOn(dataDir: string, failing: Failing): LowdbStore {
  const io: LedgerIo = {
    ...nodeIo,
    writeNewFile: async (path, text, sync) => {
      const gate = /seen[/\\]/.test(path) ? failing.seenGate : undefined;
      if (gate) {
        failing.seenGate = undefined;
        gate.reached();
        await gate.open;
      }
      if (failing.seen && /seen[/\\]/.test(path))
        throw Object.assign(new Error('ENOSPC: injected failure'), { code: 'ENOSPC' });
      return nodeIo.writeNewFile(path, text, sync);
    },
    remove: async (path) => {
      if (failing.remove && /inbox[/\\]\d+\.json$/.test(path))
        throw Object.assign(new Error('EIO: injected failure'), { code: 'EIO' });
      return nodeIo.remove(path);
    },
  };
  return new LowdbStore({ dataDir, settleAfterMs: 1, io });
}

describe.each([
  ['lowdb', true],
  ['postgres', postgresAvailable()],
])('a shop erased while intake works, on %s', (backend, available) => {
  let store: LedgerStore;
  let close: () => Promise<void>;
  let reopen: () => Promise<LedgerStore>;
  const failing: Failing = { remove: false, seen: false, seenGate: undefined };

  beforeEach(async () => {
    if (!available) return;
    failing.remove = false;
    failing.seen = false;
    if (backend === 'lowdb') {
      const dataDir = tempDataDir();
      let current = lowdbOn(dataDir, failing);
      await current.open();
      store = current;
      close = () => current.close();
      reopen = async () => {
        await current.close();
        current = lowdbOn(dataDir, failing);
        await current.open();
        return current;
      };
      return;
    }
    let opened = await freshStore();
    store = opened.store;
    close = () => opened.close();
    reopen = async () => {
      // Another instance on the same database.
      const other = await import('../helpers/postgres-store.ts').then((helpers) =>
        helpers.openStoreOn(opened.database.url),
      );
      const first = opened;
      opened = { ...first, store: other.store, close: async () => (await other.close(), await first.close()) };
      return other.store;
    };
  });
  afterEach(async () => {
    if (available) await close();
  });

  it.skipIf(!available)(
    'folds nothing of a delivery taken by its shop’s erasure while intake held it, and keeps the act',
    async () => {
      const { event, entry } = delivery(SHOP);
      const letter = delivery(SHOP);
      const other = delivery('b.example');
      for (const each of [entry, letter.entry, other.entry]) expect(await store.accept(each)).toBe('accepted');
      const held = await store.claimInbox('intake', 10, 60_000);
      expect(held.map((each) => each.key).sort()).toEqual([entry.key, letter.entry.key, other.entry.key].sort());

      await store.eraseShop('testshop', SHOP, prefixOf(SHOP));
      await store.commitIntake([
        { entryKey: entry.key, events: entry.events!, records: [{ kind: 'acted-once', id: 'act-1', value: {} }] },
        {
          entryKey: letter.entry.key,
          deadLetter: { id: 'dl-erased', kind: 'delivery', reason: 'x', platform: 'testshop', shop: SHOP },
        },
        { entryKey: other.entry.key, events: other.entry.events! },
      ]);

      expect(await store.getOrder(keyOf(event)), 'the erased shop’s order came back').toBeUndefined();
      expect(await store.getDeadLetter('dl-erased'), 'the erased shop’s dead letter came back').toBeUndefined();
      // The act of a destructive body is kept with its step, whatever became of the entry.
      expect(await store.getRecord(raw('acted-once'), 'act-1')).toEqual({});
      // Another shop's delivery in the same step is folded.
      expect((await store.getOrder(keyOf(other.event)))?.facts).toEqual(['placed', 'paid']);
    },
  );

  it.skipIf(!available)(
    'hands out a copy stored again under the key of a delivery erased while intake held it',
    async () => {
      // A key naming the shop (as WooCommerce's): forgotten with the shop, so the same delivery is new again.
      const { entry } = delivery(SHOP);
      expect(await store.accept(entry)).toBe('accepted');
      expect((await store.claimInbox('intake', 10, 60_000)).map((each) => each.key)).toEqual([entry.key]);
      await store.eraseShop('testshop', SHOP, prefixOf(SHOP));

      expect(await store.accept({ ...entry, receivedAt: new Date().toISOString() })).toBe('accepted');
      expect(
        (await store.claimInbox('intake', 10, 60_000)).map((each) => each.key),
        'the copy waits in the inbox, and nobody can take it',
      ).toEqual([entry.key]);
    },
  );

  /** A delivery claimed by step-a, its shop erased, and the same delivery stored again and claimed by step-b. */
  const storedAgainUnderAnotherClaim = async () => {
    const { event, entry } = delivery(SHOP);
    expect(await store.accept(entry)).toBe('accepted');
    expect((await store.claimInbox('step-a', 10, 60_000)).map((each) => each.key)).toEqual([entry.key]);
    await store.eraseShop('testshop', SHOP, prefixOf(SHOP));
    expect(await store.accept({ ...entry, receivedAt: new Date().toISOString() })).toBe('accepted');
    expect((await store.claimInbox('step-b', 10, 60_000)).map((each) => each.key)).toEqual([entry.key]);
    return { event, entry };
  };

  it.skipIf(!available)(
    'leaves a copy stored again to the claim that holds it, whatever the step of the erased copy does',
    async () => {
      const { event, entry } = await storedAgainUnderAnotherClaim();
      const takenBy = async (owner: string) => (await store.claimInbox(owner, 10, 60_000)).map((each) => each.key);

      // The erased copy's step goes on as if it still held its entry: it lets go, defers, commits.
      await store.releaseEntry('step-a', entry.key, new Date());
      expect(await takenBy('step-c'), 'a release by the erased step freed the copy').toEqual([]);
      const now = new Date().toISOString();
      await store.deferInbox('step-a', entry.key, { attempts: 1, firstFailureAt: now, retryAt: now, lastError: 'x' });
      expect(await takenBy('step-c'), 'a deferral by the erased step freed the copy').toEqual([]);
      expect(
        await store.renewClaims(
          'inbox',
          [
            { key: entry.key, owner: 'step-a' },
            { key: entry.key, owner: 'step-b' },
          ],
          60_000,
        ),
      ).toEqual([{ key: entry.key, owner: 'step-b' }]);
      await store.commitIntake([{ entryKey: entry.key, owner: 'step-a', events: entry.events! }]);
      expect(await store.getOrder(keyOf(event)), 'the erased step folded the copy another holds').toBeUndefined();
      expect(await takenBy('step-c')).toEqual([]);

      // The holder's own step folds it, once.
      await store.commitIntake([{ entryKey: entry.key, owner: 'step-b', events: entry.events! }]);
      expect((await store.getOrder(keyOf(event)))?.facts).toEqual(['placed', 'paid']);
      expect(await store.inboxEntry(entry.key)).toBeUndefined();
    },
  );

  it.skipIf(!available)(
    'consumes a copy stored again once, when the erased step commits in the same batch as its holder',
    async () => {
      const { event, entry } = await storedAgainUnderAnotherClaim();
      await store.commitIntake([
        {
          entryKey: entry.key,
          owner: 'step-a',
          deadLetter: { id: 'dl-stale', kind: 'delivery', reason: 'x', platform: 'testshop', shop: SHOP },
        },
        { entryKey: entry.key, owner: 'step-b', events: entry.events! },
      ]);
      expect(await store.getDeadLetter('dl-stale'), 'the erased step’s dead letter was kept too').toBeUndefined();
      expect((await store.getOrder(keyOf(event)))?.facts).toEqual(['placed', 'paid']);
    },
  );

  if (backend === 'lowdb')
    it.skipIf(!available)('holds a copy nobody held while the commit folding it is on its way', async () => {
      const { event, entry } = delivery(SHOP);
      expect(await store.accept(entry)).toBe('accepted');
      expect((await store.claimInbox('step-a', 10, 60_000)).map((each) => each.key)).toEqual([entry.key]);
      await store.eraseShop('testshop', SHOP, prefixOf(SHOP));
      expect(await store.accept({ ...entry, receivedAt: new Date().toISOString() })).toBe('accepted');
      // The erased step commits the copy nobody holds; its seen file waits at a gate.
      let open!: () => void;
      const reached = new Promise<void>((resolve) => {
        failing.seenGate = { reached: resolve, open: new Promise<void>((go) => (open = go)) };
      });
      const committing = store.commitIntake([{ entryKey: entry.key, owner: 'step-a', events: entry.events! }]);
      await reached;
      expect(await store.claimInbox('step-b', 10, 60_000), 'another step took the copy being committed').toEqual([]);
      open();
      await committing;
      expect((await store.getOrder(keyOf(event)))?.facts).toEqual(['placed', 'paid']);
      expect(await store.inboxEntry(entry.key)).toBeUndefined();
    });

  if (backend === 'lowdb')
    it.skipIf(!available)('lets a failed commit free only what its own steps hold', async () => {
      const { entry } = delivery(SHOP);
      const other = delivery('b.example');
      expect(await store.accept(entry)).toBe('accepted');
      expect((await store.claimInbox('step-a', 10, 60_000)).map((each) => each.key)).toEqual([entry.key]);
      await store.eraseShop('testshop', SHOP, prefixOf(SHOP));
      for (const each of [{ ...entry, receivedAt: new Date().toISOString() }, other.entry])
        expect(await store.accept(each)).toBe('accepted');
      expect((await store.claimInbox('step-b', 10, 60_000)).map((each) => each.key).sort()).toEqual(
        [entry.key, other.entry.key].sort(),
      );
      // Step b holds both; the erased step commits beside another step of b, and the disk is full.
      await store.releaseEntry('step-b', other.entry.key, new Date(0));
      expect((await store.claimInbox('step-x', 10, 60_000)).map((each) => each.key)).toEqual([other.entry.key]);
      failing.seen = true;
      await expect(
        store.commitIntake([
          { entryKey: entry.key, owner: 'step-a', events: entry.events! },
          { entryKey: other.entry.key, owner: 'step-x', events: other.entry.events! },
        ]),
      ).rejects.toThrow(/injected/);
      failing.seen = false;
      expect(
        (await store.claimInbox('step-c', 10, 60_000)).map((each) => each.key),
        'the failed commit freed the copy step b holds',
      ).toEqual([other.entry.key]);
    });

  it.skipIf(!available)(
    "keeps the dedupe keys (aliases too) of another shop's delivery still waiting, and forgets this shop's",
    async () => {
      const waiting = delivery(PORT_SHOP, `testshop:event:${++sequence}`);
      const gone = delivery(SHOP, `testshop:event:${++sequence}`);
      expect(await store.accept(waiting.entry)).toBe('accepted');
      expect(await store.accept(gone.entry)).toBe('accepted');
      expect(waiting.entry.aliases[0]!.startsWith(prefixOf(SHOP))).toBe(true);

      await store.eraseShop('testshop', SHOP, prefixOf(SHOP));

      // The same body under a new id (a captured delivery sent again): a duplicate while the first copy waits.
      const resent = (each: InboxEntry): InboxEntry => ({
        ...each,
        key: `testshop:resent:${each.key}`,
        receivedAt: new Date().toISOString(),
      });
      expect(await store.accept(resent(waiting.entry)), 'a copy of a waiting delivery passed as new').toBe('duplicate');
      expect(await store.accept(resent(gone.entry))).toBe('accepted');
      expect(await store.inboxEntry(waiting.entry.key)).toBeDefined();
    },
  );

  it.skipIf(!available)(
    'keeps the aliases of a delivery still waiting when the dedupe window passes, as its own key',
    async () => {
      const waiting = delivery(SHOP);
      expect(await store.accept(waiting.entry)).toBe('accepted');
      // The whole window has passed: every consumed key goes, a waiting delivery's stay.
      await store.pruneSeen(new Date(Date.now() + 60_000));
      const copy = { ...waiting.entry, key: `${prefixOf(SHOP)}resent` };
      expect(await store.accept(copy)).toBe('duplicate');
    },
  );

  // lowdb's own files: PostgreSQL's erasure is one transaction, which a failed statement rolls back whole.
  if (backend === 'lowdb')
    it.skipIf(!available)(
      'leaves a delivery whose file could not be removed to the next erasure, not to the next start',
      async () => {
        const { event, entry } = delivery(SHOP);
        expect(await store.accept(entry)).toBe('accepted');
        failing.remove = true;
        await expect(store.eraseShop('testshop', SHOP, prefixOf(SHOP))).rejects.toThrow(/injected/);
        failing.remove = false;
        await store.eraseShop('testshop', SHOP, prefixOf(SHOP));
        expect(await store.inboxEntry(entry.key)).toBeUndefined();

        const again = await reopen();
        expect(await again.inboxEntry(entry.key), 'the erased delivery is back after a restart').toBeUndefined();
        expect(await again.claimInbox('intake', 10, 60_000)).toEqual([]);
        expect(await again.getOrder(keyOf(event))).toBeUndefined();
      },
    );
});
