// DATA_DIR/backup: the last good copy of every file the lowdb store rewrites
// in place, for a person to restore if a crash or a full disk ever damages
// one. Files that did not change since the last backup are not copied again;
// files that are gone are removed from it, so the backup is one picture (and
// an erasure reaches it).
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export const BACKUP = 'backup';
/** Folders whose files are rewritten in place, and so are backed up. */
const BACKED_UP = ['orders', join('orders', 'index'), 'lp-order-ids', 'records', 'dead-letters'];

export async function backUp(dataDir: string): Promise<void> {
  const path = (...parts: string[]) => join(dataDir, ...parts);
  const targets = new Set<string>();
  for (const folder of ['', ...BACKED_UP]) {
    for (const name of await readdir(path(folder)).catch(() => [] as string[])) {
      if (/^[^.].*\.json$/.test(name)) targets.add(join(folder, name));
    }
  }
  for (const target of targets) {
    const source = path(target);
    const copy = path(BACKUP, target);
    try {
      const [from, to] = await Promise.all([stat(source), stat(copy).catch(() => undefined)]);
      if (to && to.mtimeMs >= from.mtimeMs && to.size === from.size) continue;
      await mkdir(dirname(copy), { recursive: true, mode: 0o700 });
      await copyFile(source, `${copy}.tmp`);
      await rename(`${copy}.tmp`, copy);
    } catch (error) {
      // A file that went away meanwhile (a partition emptied) is simply not copied.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  for (const folder of ['', ...BACKED_UP, 'inbox']) {
    for (const name of await readdir(path(BACKUP, folder)).catch(() => [] as string[])) {
      const relativePath = join(folder, name);
      if (name.endsWith('.json') && !targets.has(relativePath)) await rm(path(BACKUP, relativePath), { force: true });
      if (name.endsWith('.tmp')) await rm(path(BACKUP, relativePath), { force: true });
    }
  }
}

/**
 * Copies these files (relative to DATA_DIR) over their backups now: a change
 * the old copies must not outlive, such as secrets sealed that the backup
 * still holds in plain text.
 */
export async function backUpFiles(dataDir: string, files: string[]): Promise<void> {
  for (const file of files) {
    const copy = join(dataDir, BACKUP, file);
    await mkdir(dirname(copy), { recursive: true, mode: 0o700 });
    await copyFile(join(dataDir, file), `${copy}.tmp`);
    await rename(`${copy}.tmp`, copy);
  }
}
