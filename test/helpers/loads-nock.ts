// Which test files load nock, through any of their own imports: vitest.config.ts keeps each of those in a process of
// its own. nock, once loaded, stays in its process: it intercepts every http request and fetch there, whatever later
// file makes it (a streamed download arrived whole; issue 67), so no file after it would run as it does alone.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

// Static imports, re-exports and dynamic imports of a literal path.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

/** A predicate on absolute paths of test files: whether the file, or a file it imports, imports nock. */
export function nockLoader(): (file: string) => boolean {
  const known = new Map<string, boolean>();
  const loads = (file: string, seen: Set<string>): boolean => {
    const cached = known.get(file);
    if (cached !== undefined) return cached;
    if (seen.has(file)) return false;
    seen.add(file);
    let found = false;
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (specifier === 'nock') found = true;
      else if (specifier?.startsWith('.')) {
        const path = resolve(dirname(file), specifier);
        found = existsSync(path) && statSync(path).isFile() && loads(path, seen);
      }
      if (found) break;
    }
    known.set(file, found);
    return found;
  };
  return (file) => loads(file, new Set());
}
