// The lowdb dedupe memory's files while they are being written: a seen file is created, then filled, then
// synced, and an hour's merge or a shop's erasure that lists the files meanwhile must neither take it for
// torn (and remove it with the keys it is about to hold) nor miss it (and leave a key naming the erased shop).
// Each write is held at a gate, so the interleaving happens every run.
import { open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InboxEntry } from '../../src/core/delivery.ts';
import { nodeIo, type LedgerIo } from '../../src/core/store/lowdb/ledger-io.ts';
import { LowdbStore } from '../../src/core/store/lowdb/lowdb-store.ts';
import { tempDataDir } from '../helpers/engine.ts';
import { orderEvent } from '../helpers/order-events.ts';

const HOUR = 3_600_000;
let sequence = 0;

function entryOf(shop: string, receivedAt: Date): InboxEntry {
  return {
    key: `testshop:body:${shop}:d${++sequence}`,
    aliases: [],
    receivedAt: receivedAt.toISOString(),
    retry: null,
    events: [orderEvent({ shop, orderId: String(700_000 + sequence), facts: ['placed'] })],
  };
}

/** node:fs, where the next seen file, once `gate()` is set, is created and then waits to be filled. */
function gatedIo() {
  let gate: { open: Promise<void>; reached: () => void } | undefined;
  const io: LedgerIo = {
    ...nodeIo,
    writeNewFile: async (path, text, sync) => {
      const held = /seen[/\\]/.test(path) ? gate : undefined;
      if (!held) return nodeIo.writeNewFile(path, text, sync);
      gate = undefined;
      const handle = await open(path, 'wx');
      try {
        held.reached();
        await held.open;
        await handle.writeFile(text);
        if (sync) await handle.datasync();
      } finally {
        await handle.close();
      }
    },
  };
  return {
    io,
    hold() {
      let openGate!: () => void;
      let reached!: () => void;
      const arrived = new Promise<void>((resolve) => (reached = resolve));
      gate = { open: new Promise<void>((resolve) => (openGate = resolve)), reached };
      return { open: openGate, reached: arrived };
    },
  };
}

async function opened(dataDir: string, io: LedgerIo = nodeIo): Promise<LowdbStore> {
  const store = new LowdbStore({ dataDir, settleAfterMs: 0, io });
  await store.open();
  return store;
}

async function consume(store: LowdbStore, entry: InboxEntry): Promise<void> {
  expect(await store.accept(entry)).toBe('accepted');
  const [held] = await store.claimInbox('intake', 1, 60_000);
  await store.commitIntake([{ entryKey: held!.key, owner: 'intake', events: held!.events! }]);
}

/** What else is under way gets its chance: until it ends, or for a moment (the fixed store makes it wait). */
const aMoment = (other: Promise<unknown>) =>
  Promise.race([other.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 100))]);

describe('the lowdb seen files while one is being written', () => {
  it("keeps the keys of a file an hour's merge found still empty", async () => {
    const dataDir = tempDataDir();
    const control = gatedIo();
    const store = await opened(dataDir, control.io);
    // Two deliveries received two hours ago, consumed now: their hour is over, so its files are merged.
    const earlier = new Date(Date.now() - 2 * HOUR);
    await consume(store, entryOf('a.example', earlier));
    const late = entryOf('a.example', earlier);
    const gate = control.hold();
    const consuming = consume(store, late);
    await gate.reached;
    const pruning = store.pruneSeen(new Date(Date.now() - 24 * HOUR));
    await aMoment(pruning);
    gate.open();
    await Promise.all([consuming, pruning]);
    await store.close();

    const again = await opened(dataDir);
    expect(
      await again.accept({ ...late, receivedAt: new Date().toISOString() }),
      'the late delivery was new again',
    ).toBe('duplicate');
    await again.close();
  });

  it('forgets an erased shop’s key written while its erasure looked through the files', async () => {
    const dataDir = tempDataDir();
    const control = gatedIo();
    const store = await opened(dataDir, control.io);
    const entry = entryOf('a.example', new Date());
    const gate = control.hold();
    const consuming = consume(store, entry);
    await gate.reached;
    const erasing = store.eraseShop('testshop', 'a.example', 'testshop:body:a.example:');
    await aMoment(erasing);
    gate.open();
    await Promise.all([consuming, erasing]);
    await store.close();

    const seen = await Promise.all(
      (await readdir(join(dataDir, 'seen'))).map((name) => readFile(join(dataDir, 'seen', name), 'utf8')),
    );
    expect(seen.join('\n'), 'a seen file names the erased shop').not.toContain('a.example');
    const again = await opened(dataDir);
    expect(await again.accept({ ...entry, receivedAt: new Date().toISOString() })).toBe('accepted');
    await again.close();
  });
});
