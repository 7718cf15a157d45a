// The lowdb store's cache of open files: never lets go of a file in use or
// changed and not yet written, and lets go of clean ones past its limit. With
// many files that cannot go (a journaled registry's changed buckets), a trim
// that found too few to let go is not repeated on every use, yet files that
// became clean meanwhile are let go a few uses later.
import { describe, expect, it } from 'vitest';
import type { DurableLow } from '../../src/core/store/lowdb/durable-file.ts';
import { OpenFiles } from '../../src/core/store/lowdb/open-files.ts';

type Fake = DurableLow<unknown> & { clean: boolean };
const fake = (clean: boolean) => ({ clean }) as unknown as Fake;

describe('OpenFiles', () => {
  it('lets go of clean files past its limit, never of one in use or not clean', async () => {
    const files = new OpenFiles<number, Fake>(2);
    const opened: Fake[] = [];
    const open = (clean: boolean) => async () => {
      const file = fake(clean);
      opened.push(file);
      return file;
    };
    const held = await files.acquire(0, open(true));
    await files.use(1, open(false), () => undefined);
    for (let key = 2; key < 6; key++) await files.use(key, open(true), () => undefined);
    expect(files.size).toBe(2);
    // The file in use and the one not clean are the same objects still.
    expect(await files.use(0, open(true), (file) => file)).toBe(opened[0]);
    expect(await files.use(1, open(true), (file) => file)).toBe(opened[1]);
    held.done();
  });

  it('with many files that cannot go, scans again only after some uses, and then lets go of those now clean', async () => {
    const limit = 4;
    const files = new OpenFiles<number, Fake>(limit);
    const dirty: Fake[] = [];
    for (let key = 0; key < 400; key++)
      await files.use(
        key,
        async () => {
          const file = fake(false);
          dirty.push(file);
          return file;
        },
        () => undefined,
      );
    expect(files.size).toBe(400);
    // Written at last (the journal emptied): all clean. Within an eighth of the files' count in uses, they go.
    for (const file of dirty) file.clean = true;
    let uses = 0;
    while (files.size > limit && uses < 400 / 8 + 2) {
      await files.use(
        0,
        async () => fake(true),
        () => undefined,
      );
      uses++;
    }
    expect(files.size).toBeLessThanOrEqual(limit);
    expect(uses).toBeGreaterThan(1);
  });
});
