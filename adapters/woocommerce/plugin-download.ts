// The WordPress plugin as the merchant downloads it from their page: wordpress/loyalty-bridge/ zipped once, when the
// module is built, as WordPress's "Upload Plugin" takes it (one folder, loyalty-bridge/, at the archive's root), its
// file named by the version in the plugin's header, so a merchant sees which one they install. Only the plugin's own
// files: its tests stay out.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync, type Zippable } from 'fflate';
import { downloadAnswer } from '../../src/core/platform-answers.ts';
import type { PlatformRoute } from '../../src/core/platform-module.ts';

const PLUGIN_DIR = fileURLToPath(new URL('../../wordpress/loyalty-bridge/', import.meta.url));
const FOLDER = 'loyalty-bridge';
/** A fixed date for every entry: the same plugin makes the same bytes. */
const ENTRY_TIME = new Date('2026-01-01T00:00:00Z');

export interface PluginZip {
  version: string;
  fileName: string;
  bytes: Uint8Array;
}

/** The plugin's version, as its header says (" * Version: 0.1.0"). */
export function pluginVersion(mainFile: string): string {
  const version = /^\s*\*\s*Version:\s*([\w.+-]{1,40})\s*$/m.exec(mainFile)?.[1];
  if (!version) throw new Error('the WordPress plugin’s header names no Version');
  return version;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : entry.isFile() ? [join(dir, entry.name)] : [],
  );
}

/** The plugin zipped from its folder (the repository's, or a test's). */
export function zipPlugin(dir = PLUGIN_DIR): PluginZip {
  const files = filesUnder(dir).sort();
  const entries: Zippable = {};
  for (const file of files)
    entries[`${FOLDER}/${relative(dir, file).split('\\').join('/')}`] = [readFileSync(file), { mtime: ENTRY_TIME }];
  const version = pluginVersion(readFileSync(join(dir, `${FOLDER}.php`), 'utf8'));
  return { version, fileName: `${FOLDER}-${version}.zip`, bytes: zipSync(entries, { level: 9 }) };
}

/** GET /woocommerce/plugin/<file name>: the zip, which anyone may download (it holds no key: a store connects with a code). */
export function pluginDownloadRoute(zip: PluginZip): PlatformRoute {
  return {
    method: 'GET',
    path: `/plugin/${zip.fileName}`,
    handle: () =>
      Promise.resolve(downloadAnswer({ fileName: zip.fileName, contentType: 'application/zip', bytes: zip.bytes })),
  };
}
