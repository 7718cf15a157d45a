// One process per DATA_DIR: lowdb files have no locking of their own, and two
// writers would overwrite each other's changes. A lock file holds the pid; a
// lock left by a process that no longer runs (killed, crashed) is taken over.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(`DATA_DIR ${dataDir} is in use by another loyalty-bridge process (pid ${pid}). Stop it first, or use a different DATA_DIR.`);
    this.name = 'DataDirInUseError';
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Takes the lock, or throws DataDirInUseError. Returns the release function. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, 'lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) throw new DataDirInUseError(dataDir, holder);
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not take the lock on ${dataDir}`);
}
