// The WordPress plugin's own checks, in the suite README's command runs: every PHP file parses with Debian's PHP
// (`php -l`), and its PHPUnit tests pass (wordpress/tests/: the connect exchange, the door's and the identity token's
// signatures, what the plugin prints, escaped). .ci/run installs php-cli and phpunit; a machine without them skips
// this with one line.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const RUN = fileURLToPath(new URL('../../wordpress/tests/run.sh', import.meta.url));
const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
const missing = ['php', 'phpunit'].filter((command) => !has(command));
if (missing.length > 0) console.log(`WordPress plugin's PHP tests skipped: no ${missing.join(' or ')} on this machine`);

describe.skipIf(missing.length > 0)('the WordPress plugin', () => {
  it('parses with PHP, and passes its PHPUnit tests', () => {
    const run = spawnSync('sh', [RUN], { encoding: 'utf8', timeout: 120_000 });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('php -l: every file parses');
    // PHPUnit's closing line: "OK (75 tests, 208 assertions)".
    const passed = Number(/OK \((\d+) tests?,/.exec(run.stdout)?.[1] ?? 0);
    expect(passed).toBeGreaterThanOrEqual(50);
  });
});
