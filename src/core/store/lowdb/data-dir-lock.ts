// One process per DATA_DIR: lowdb files have no locking of their own, and two writers would overwrite each
// other's changes. The lock is a kernel lock on DATA_DIR/lock (an open file description lock), so the
// kernel releases it the moment the holder dies, however it dies: a restart right after SIGKILL, or after a
// reboot that hands out the same pid, takes it at once. The pid in the file is only for people.
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import fsx from 'fs-native-extensions';
import { BridgeError } from '../../../errors.ts';

export class DataDirInUseError extends BridgeError<'data_dir_in_use'> {
  constructor(dataDir: string, holder: string) {
    const fix = 'Stop it first, or use a different DATA_DIR.';
    super(
      'data_dir_in_use',
      `DATA_DIR ${dataDir} is in use by another loyalty-bridge process${holder ? ` (pid ${holder})` : ''}. ${fix}`,
      { fix },
    );
  }
}

/**
 * Takes the lock, or throws DataDirInUseError. A process killed a moment ago
 * may still be being torn down by the kernel: the lock is asked for again for
 * up to `waitMs` before the answer is no. Returns the release function.
 */
export async function lockDataDir(dataDir: string, { waitMs = 3_000 }: { waitMs?: number } = {}): Promise<() => void> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, 'lock');
  const fd = openSync(path, 'a+', 0o600);
  const deadline = Date.now() + waitMs;
  while (!fsx.tryLock(fd)) {
    if (Date.now() >= deadline) {
      const holder = readFileSync(path, 'utf8').trim();
      closeSync(fd);
      throw new DataDirInUseError(dataDir, holder);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  ftruncateSync(fd, 0);
  writeSync(fd, String(process.pid), 0);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // Closing the descriptor releases the lock; the file stays, harmlessly.
    closeSync(fd);
  };
}
