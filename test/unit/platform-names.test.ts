// src/ keeps one list of platforms: no other file of it, code, comment or page, names a shipped platform, so a
// platform's code can only live in its module. Words a person reads come from each module's names.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PLATFORMS } from '../../src/platform-registry.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const THE_LIST = 'src/platform-registry.ts';

const filesUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );

describe('the platforms src/ names', () => {
  it.each(PLATFORMS.map((platform) => [platform]))('names %s in the registry alone', (platform) => {
    const naming = filesUnder('src')
      .filter((file) => readFileSync(join(ROOT, file), 'utf8').toLowerCase().includes(platform))
      .map((file) => relative(ROOT, join(ROOT, file)));
    expect(naming).toEqual([THE_LIST]);
  });
});
