// README is a start (issue 68, item 5): one screen, lines a reader can read
// without scrolling sideways, and no link that leads nowhere. A link into a
// markdown file's #section must name a heading that is there, by GitHub's
// rule for a heading's anchor, since a renamed section breaks it silently.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = join(ROOT, 'docs');
const docs = readdirSync(DOCS)
  .filter((name) => name.endsWith('.md'))
  .map((name) => join(DOCS, name));
const README = join(ROOT, 'README.md');
/** Every guide: a long line is a wall of text, to a newcomer and to a reviewer of its diff. */
const SHORT_LINED = [README, ...docs];
const PROSE_WIDTH = 200;

/** Each line outside code fences, with its number; a fence's own lines are code too. */
function linesOutsideCode(text: string): { line: string; number: number }[] {
  const out: { line: string; number: number }[] = [];
  let inFence = false;
  text.split('\n').forEach((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence) out.push({ line, number: index + 1 });
  });
  return out;
}

/** GitHub's anchor for a heading: lowercase, punctuation but '-' and '_' dropped, each space a '-'. */
function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** Every anchor a markdown file offers; a repeated heading gets -1, -2, … as on GitHub. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { line } of linesOutsideCode(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

/** Each relative link of a file that leads nowhere, as `line: target (why)`. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const { line, number } of linesOutsideCode(readFileSync(file, 'utf8'))) {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#', 2);
      const into = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      if (!existsSync(into)) broken.push(`${number}: ${target} (no such file)`);
      else if (anchor !== undefined && into.endsWith('.md') && !anchors(into).has(anchor))
        broken.push(`${number}: ${target} (no such heading in ${relative(ROOT, into)})`);
    }
  }
  return broken;
}

describe('README and the guides', () => {
  it('README fits on one screen: at most 60 lines', () => {
    const lines = readFileSync(README, 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(60);
  });

  it.each(SHORT_LINED.map((file) => [relative(ROOT, file), file]))(
    '%s has no prose line over 200 characters (code and tables aside)',
    (_name, file) => {
      const long = linesOutsideCode(readFileSync(file, 'utf8'))
        .filter(({ line }) => !line.trimStart().startsWith('|') && line.length > PROSE_WIDTH)
        .map(({ line, number }) => `${number}: ${line.length} characters`);
      expect(long).toEqual([]);
    },
  );

  it.each([README, ...docs].map((file) => [relative(ROOT, file), file]))(
    'every relative link in %s leads to a file, and to a heading that is there',
    (_name, file) => {
      expect(brokenLinks(file)).toEqual([]);
    },
  );

  it('reads anchors as GitHub makes them', () => {
    expect(slug('Rotating `SECRETS_KEY`')).toBe('rotating-secrets_key');
    expect(slug("A merchant's reach")).toBe('a-merchants-reach');
    expect(slug('Several instances (PostgreSQL)')).toBe('several-instances-postgresql');
    expect(slug('Points in the store: the WordPress plugin')).toBe('points-in-the-store-the-wordpress-plugin');
    expect(slug('Rewards: reserve at issue, redeem at use')).toBe('rewards-reserve-at-issue-redeem-at-use');
  });
});
