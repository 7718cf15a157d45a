// The soak's slow-disk run starts the bridge under strace, which injects a
// delay into every fsync. Signalled alone, strace detaches and exits, and
// the bridge it traced was left running with parent 1 (the soak then waited
// on its open stderr for ever). A server is now stopped as a process group.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, groupAlive, startServer } from '../../bench/lib/bridge-process.ts';
import { tools } from '../helpers/test-tools.ts';
import { slowDisk } from '../soak/load.ts';

const childrenOf = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe.skipIf(!tools.strace)("the soak's slow-disk bridge", () => {
  it('leaves nothing alive once stopped: neither strace nor the bridge it traced', async () => {
    const server = await startServer(
      [CLI, 'start'],
      { DATA_DIR: mkdtempSync(join(tmpdir(), 'soak-cleanup-')), LOG_LEVEL: 'warn', DEMO_STORE: 'off' },
      { prefix: slowDisk(1) },
    );
    const bridges = childrenOf(server.group);
    expect(bridges).toHaveLength(1); // strace's one child: the bridge's node
    await server.stop();
    expect(groupAlive(server.group)).toBe(false);
    expect(alive(bridges[0]!)).toBe(false);
  });
});
