// Group commit on its own: what goes in a batch, what waits, and that every
// caller hears by the deadline.
import { describe, expect, it } from 'vitest';
import { CommitDeadlineError, GroupCommit } from '../../src/core/store/postgres/group-commit.ts';

interface Item {
  id: string;
  keys: string[];
}

/** A commit whose batches the test finishes one at a time. */
function controlled(options: { maxInFlight?: number; maxItems?: number; deadlineMs?: number } = {}) {
  const batches: Array<{ ids: string[]; finish: (error?: Error) => void }> = [];
  const group = new GroupCommit<Item, string>({
    commit: (items) =>
      new Promise((resolve, reject) => {
        batches.push({
          ids: items.map((item) => item.id),
          finish: (error) => (error ? reject(error) : resolve(items.map((item) => `done ${item.id}`))),
        });
      }),
    keysOf: (item) => item.keys,
    weightOf: () => 1,
    maxInFlight: 1,
    ...options,
  });
  return { group, batches };
}

const item = (id: string, ...keys: string[]): Item => ({ id, keys: keys.length > 0 ? keys : [id] });

describe('group commit', () => {
  it('commits a lone item at once, and what arrives meanwhile together in the next batch', async () => {
    const { group, batches } = controlled();
    const first = group.add(item('a'));
    expect(batches.map((batch) => batch.ids)).toEqual([['a']]);
    const later = ['b', 'c', 'd'].map((id) => group.add(item(id)));
    batches[0]!.finish();
    expect(await first).toBe('done a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches.map((batch) => batch.ids)).toEqual([['a'], ['b', 'c', 'd']]);
    batches[1]!.finish();
    expect(await Promise.all(later)).toEqual(['done b', 'done c', 'done d']);
  });

  it('never puts two items sharing a key in one batch: the later waits for the first, and so does all after it with that key', async () => {
    const { group, batches } = controlled();
    const results = [
      group.add(item('blocker')),
      group.add(item('a', 'k1', 'x')),
      group.add(item('b', 'k1')),
      group.add(item('c', 'k2')),
      group.add(item('d', 'k1', 'k2')),
    ];
    batches[0]!.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches[1]!.ids).toEqual(['a', 'c']);
    batches[1]!.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches[2]!.ids).toEqual(['b']);
    batches[2]!.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches[3]!.ids).toEqual(['d']);
    batches[3]!.finish();
    await Promise.all(results);
  });

  it('answers every item of a failed batch with its error', async () => {
    const { group, batches } = controlled({ maxInFlight: 2 });
    const a = group.add(item('a'));
    const b = group.add(item('b'));
    batches[1]!.finish(new Error('disk full'));
    batches[0]!.finish();
    expect(await a).toBe('done a');
    await expect(b).rejects.toThrow('disk full');
  });

  it('answers by the deadline: a commit under way with an error, and an item still waiting with an error, never to be committed', async () => {
    const { group, batches } = controlled({ deadlineMs: 50 });
    const stuck = group.add(item('stuck'));
    const waiting = group.add(item('waiting'));
    await expect(stuck).rejects.toBeInstanceOf(CommitDeadlineError);
    await expect(waiting).rejects.toBeInstanceOf(CommitDeadlineError);
    // The stuck commit comes back at last: the waiting item is not in the next batch.
    batches[0]!.finish();
    const next = group.add(item('next'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches.map((batch) => batch.ids)).toEqual([['stuck'], ['next']]);
    batches[1]!.finish();
    expect(await next).toBe('done next');
  });

  it('keeps batches within their size', async () => {
    const { group, batches } = controlled({ maxItems: 2 });
    const all = ['blocker', 'a', 'b', 'c'].map((id) => group.add(item(id)));
    batches[0]!.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches[1]!.ids).toEqual(['a', 'b']);
    batches[1]!.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches[2]!.ids).toEqual(['c']);
    batches[2]!.finish();
    await Promise.all(all);
  });
});
