// `npm install` on a Node older than package.json's engines, as a newcomer on Debian's Node 20 runs it: the first
// thing printed is npm's refusal (EBADENGINE, from .npmrc's engine-strict), not a screen of peer-dependency notes
// that buries it. Run in a copy of the manifest, the lockfile and .npmrc, from npm's cache where it can (the registry for the rest).
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const OLD_NODE = '/usr/bin/node';
const OLD_NPM = '/usr/bin/npm';
const oldNode = existsSync(OLD_NODE) && existsSync(OLD_NPM) ? await version() : undefined;

async function version(): Promise<string> {
  const { stdout } = await promisify(execFile)(OLD_NODE, ['--version']);
  return stdout.trim();
}

describe.skipIf(!oldNode || Number(/^v(\d+)/.exec(oldNode)?.[1]) >= 22)('npm install on an older Node', () => {
  it('prints the engine refusal first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'old-node-install-'));
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) copyFileSync(file, join(dir, file));
    const run = promisify(execFile)(
      OLD_NPM,
      ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'],
      {
        cwd: dir,
        // npm's own cache, which the project's install filled: npm resolves the tree before it checks the engine. A
        // newcomer's NODE_OPTIONS is empty; the suite's loads its cache of stripped sources, which this Node lacks.
        env: { ...process.env, PATH: '/usr/bin:/bin', NODE_OPTIONS: '' },
      },
    );
    const failed = await run.then(
      () => undefined,
      (error: { stdout: string; stderr: string }) => error,
    );
    expect(failed).toBeDefined();
    const lines = `${failed!.stdout}${failed!.stderr}`.split('\n').filter(Boolean);
    expect(lines[0]).toBe('npm error code EBADENGINE');
    expect(lines.join('\n')).toContain('Required: {"node":">=22.18"}');
    expect(lines.join('\n')).not.toMatch(/ERESOLVE|npm warn/);
  }, 60_000);
});
