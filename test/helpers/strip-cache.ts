// Loaded with `--import` by the test workers and the bridges they start, on Node 22 only (vitest.config.ts). Node 22
// strips the types from every TypeScript file again in each process, and the suite starts about 330 workers and a
// few hundred bridges: a third of each load of the bridge (docs/development.md, issue 67). Here the stripped text is
// kept on disk, keyed by the file's content and Node's version, so each file is stripped once per machine. Node 24
// and later keep it themselves (NODE_COMPILE_CACHE). The text is what Node makes (`stripTypeScriptTypes`, the
// default mode), so the code that runs is the same, line for line.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(tmpdir(), 'loyalty-bridge-strip-cache');
mkdirSync(dir, { recursive: true });

/** Node 22 warns on stderr that the function is experimental: a bridge's stderr is what several tests read. */
function quietly<T>(run: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = () => undefined;
  try {
    return run();
  } finally {
    process.emitWarning = emitWarning;
  }
}

function stripped(path: string): string {
  const text = readFileSync(path, 'utf8');
  const file = join(dir, `${createHash('sha256').update(process.version).update(text).digest('hex')}.js`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    const code = quietly(() => stripTypeScriptTypes(text));
    // Written whole, then renamed: another process reading it at once sees all of it or nothing.
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, code);
    renameSync(partial, file);
    return code;
  }
}

registerHooks({
  load(url, context, nextLoad) {
    if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/'))
      return nextLoad(url, context);
    return { format: 'module', source: stripped(fileURLToPath(url)), shortCircuit: true };
  },
});
