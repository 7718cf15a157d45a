// A registry with a journal (lowdb's lp_orderids) under a compaction that
// starts between a change and its note (found in review): the round writes
// the file with the change and forgets it was changed; were the key noted
// after, the next batch would read it from no changed file and journal it
// gone, and a restart would lose a registration that was acknowledged.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/core/store/lowdb/group-commit.ts';
import { HashedMap } from '../../src/core/store/lowdb/hashed-map.ts';
import { nodeIo, type LedgerIo } from '../../src/core/store/lowdb/ledger-io.ts';

async function attempt(delay: number) {
  const dir = mkdtempSync(join(tmpdir(), 'lb-race-'));
  let gate: Promise<void> | undefined;
  const io: LedgerIo = {
    ...nodeIo,
    // The append happens, then its completion is held: releasing it resumes the round in microtasks only.
    openAppend: async (path) => {
      const file = await nodeIo.openAppend(path);
      return {
        append: async (text, sync) => {
          await file.append(text, sync);
          if (gate) await gate;
        },
        close: () => file.close(),
      };
    },
  };
  const commit = new GroupCommit({ io });
  const map = new HashedMap(join(dir, 'ids'), commit, { journalLimit: 1e9 });
  await map.init();
  await map.set('a', '1');
  await map.get('k'); // its bucket open, as a busy registry's are
  await commit.flush();
  let open!: () => void;
  gate = new Promise((resolve) => (open = resolve));
  await map.set('b', '2');
  const first = commit.flush(); // round 1: appends b, held at the gate
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 20));
  gate = undefined;
  map.journal!.compactSoon(); // e.g. eraseShop, or the journal past its limit
  const second = commit.flush(); // round 2 will compact, starting in the microtask that ends round 1
  const setting = (async () => {
    for (let i = 0; i < delay; i++) await Promise.resolve();
    await map.setIfAbsent('k', 'order-k'); // a worker registering an lp_orderid
  })();
  open();
  await Promise.all([first, second, setting]);
  await commit.flush(); // the intent's save: the batch with k is appended
  // The process dies; the next start replays.
  const after = new HashedMap(join(dir, 'ids'), new GroupCommit(), { journalLimit: 1e9 });
  await after.init();
  return { k: await after.get('k') };
}

describe('a registry journal and a compaction between a change and its note', () => {
  it('never journals a registration as gone', async () => {
    const lost: number[] = [];
    for (let delay = 0; delay < 20; delay++) {
      const { k } = await attempt(delay);
      if (k !== 'order-k') lost.push(delay);
    }
    expect(lost).toEqual([]);
  });
});
