// The lowdb store's hashed map (the lp_orderid registry, the settled orders'
// index): a file that is not on disk is not read (a young ledger's new
// lp_orderid usually falls in such a file), while every file changed is read
// back from disk once let go of, in this process and the next.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/core/store/lowdb/group-commit.ts';
import { HashedMap } from '../../src/core/store/lowdb/hashed-map.ts';
import { nodeIo, type LedgerIo } from '../../src/core/store/lowdb/ledger-io.ts';

function countingIo() {
  const reads: string[] = [];
  const io: LedgerIo = { ...nodeIo, readFile: (path) => (reads.push(path), nodeIo.readFile(path)) };
  return { io, reads };
}

describe('HashedMap', () => {
  for (const journaled of [true, false]) {
    it(`reads no file that is not on disk, and reads back each one it wrote (${journaled ? 'with' : 'without'} a journal)`, async () => {
      const dir = join(mkdtempSync(join(tmpdir(), 'lb-hashed-')), 'map');
      const { io, reads } = countingIo();
      const options = { hexDigits: 1, cachedFiles: 1, ...(journaled ? { journalLimit: 300 } : {}) };
      const commit = new GroupCommit({ io });
      const map = new HashedMap(dir, commit, options);
      await map.init();
      const keys = Array.from({ length: 60 }, (_, i) => `key-${i}`);
      for (const key of keys.slice(0, 30)) {
        expect(await map.setIfAbsent(key, `v-${key}`)).toBe(`v-${key}`);
        await commit.flush();
      }
      // Sixteen files at most, one kept open: files written (journal emptied, or no journal) were let go and read back.
      const readsOfWritten = reads.length;
      expect(readsOfWritten).toBeGreaterThan(0);
      for (const key of keys.slice(0, 30)) expect(await map.setIfAbsent(key, 'another')).toBe(`v-${key}`);
      for (const key of keys.slice(30)) expect(await map.get(key)).toBeUndefined();
      await commit.flush();
      // The next process: what was promised is there, whichever file it is in.
      const next = new HashedMap(dir, new GroupCommit(), options);
      await next.init();
      for (const key of keys.slice(0, 30)) expect(await next.get(key)).toBe(`v-${key}`);
    });
  }

  it('opens a file that is not on disk without reading it, and reads one that is', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'lb-hashed-')), 'map');
    await mkdir(dir, { recursive: true });
    const { io, reads } = countingIo();
    const map = new HashedMap(dir, new GroupCommit({ io }), { hexDigits: 1 });
    await map.init();
    for (let i = 0; i < 200; i++) expect(await map.get(`k${i}`)).toBeUndefined();
    expect(reads).toEqual([]);
    // A file on disk at init is read, once (it stays open).
    writeFileSync(join(dir, '0.json'), JSON.stringify({ entries: { zero: 'here' } }));
    const later = new HashedMap(dir, new GroupCommit({ io }), { hexDigits: 1 });
    await later.init();
    for (let i = 0; i < 200; i++) await later.get(`k${i}`);
    expect(reads).toEqual([join(dir, '0.json')]);
  });
});
