// What the suite can drive on this machine besides Node: each tool or folder
// some tests need, decided once here. A test that needs one skips without it
// (describe.skipIf), and the global setup says so in one line per kind, with
// how to get it, so that a quiet skip never passes for a green run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's Chromium, driven by playwright-core (browser tests). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's nginx (package nginx-light), in front of the bridge as docs/production.md sets it up. */
export const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

const answers = (command: string, args: string[]) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;

/** The real platforms' payloads, beside this repository (../shared/fixtures, see its SOURCES.md); never copied in. */
export const FIXTURES_DIR = new URL('../../../shared/fixtures/', import.meta.url);
export const fixturesOf = (platform: 'shopify' | 'woocommerce' | 'bigcommerce') =>
  new URL(`${platform}/`, FIXTURES_DIR);

export const tools = {
  chromium: existsSync(CHROMIUM),
  tmux: answers('tmux', ['-V']),
  strace: answers('strace', ['-V']),
  openssl: answers('openssl', ['version']),
  nginx: existsSync(NGINX),
  fixtures: existsSync(FIXTURES_DIR),
};

/** One line per kind of test that will skip here, and why; empty when everything runs. */
export function skipLines(): string[] {
  const lines: string[] = [];
  if (!tools.chromium)
    lines.push(`Browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  if (!tools.tmux) lines.push('Terminal tests skipped: tmux is not installed (apt-get install tmux)');
  if (!tools.strace) lines.push('fsync and slow-disk tests skipped: strace is not installed (apt-get install strace)');
  if (!tools.openssl)
    lines.push('Tests behind https (WooCommerce connect, Shopify install) skipped: openssl is not installed');
  if (!tools.nginx)
    lines.push(`The reverse proxy test skipped: no nginx at ${NGINX} (apt-get install nginx-light, or set NGINX_PATH)`);
  if (!tools.fixtures)
    lines.push(
      `Tests of the platforms' real payloads skipped: no ${FIXTURES_DIR.pathname} (the shared fixtures sit beside this repository)`,
    );
  return lines;
}
