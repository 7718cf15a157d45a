// The bridge (or a baseline) in its own process, on a port chosen here, with
// its output discarded: the load generator must not spend its time reading logs.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../bin/loyalty-bridge.js', import.meta.url));
export const BASELINE = fileURLToPath(new URL('../servers/baseline.ts', import.meta.url));

export interface ServerProcess {
  url: string;
  /** The process group the server runs in: the server, its prefix, and anything they start. */
  group: number;
  startupMs: number;
  rssBytes(): number | undefined;
  cpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

/** Groups started and not yet ended: ended on the way out, whatever way that is. */
const groups = new Set<number>();
process.once('exit', () => {
  for (const group of groups) signalGroup(group, 'SIGKILL');
});

function signalGroup(group: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-group, signal);
    return true;
  } catch {
    return false; // ESRCH: nobody left in the group
  }
}

/** Whether any process of the group is still alive (zombies waiting for their parent count as gone). */
export function groupAlive(group: number): boolean {
  if (!signalGroup(group, 0)) return false;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[0] is the state, fields[2] the process group.
      if (Number(fields[2]) === group && fields[0] !== 'Z') return true;
    }
    return false;
  } catch {
    return true;
  }
}

/**
 * Ends the whole group: SIGTERM to every member (the bridge stops cleanly),
 * SIGKILL to whatever is left after the grace, and resolves once none is alive.
 */
export async function endGroup(group: number, graceMs = 20_000): Promise<void> {
  signalGroup(group, 'SIGTERM');
  const deadline = performance.now() + graceMs;
  while (groupAlive(group)) {
    if (performance.now() > deadline) signalGroup(group, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  groups.delete(group);
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** How this process's Node loads code (its compile cache; under the suite, its cache of stripped sources), for its servers. */
function nodeLoading(): Record<string, string> {
  const { NODE_COMPILE_CACHE: cache, NODE_OPTIONS: options } = process.env;
  return { ...(cache ? { NODE_COMPILE_CACHE: cache } : {}), ...(options ? { NODE_OPTIONS: options } : {}) };
}

/**
 * Starts node with args. `prefix` runs it under another program (strace
 * injecting a delay into every fsync: a slow disk); RSS and CPU are then
 * read from node, the prefix's child.
 */
export async function startServer(
  args: string[],
  env: Record<string, string>,
  { portVariable = 'PORT', timeoutMs = 60_000, prefix = [] as string[] } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const started = performance.now();
  const [command, ...rest] = [...prefix, process.execPath, ...args];
  const child: ChildProcess = spawn(command!, rest, {
    env: { PATH: process.env.PATH ?? '', ...nodeLoading(), HOST: '127.0.0.1', [portVariable]: String(port), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    // A group of its own: stop() ends the group, so a prefix (strace) that
    // detaches from node when signalled cannot leave node running behind it.
    detached: true,
  });
  const group = child.pid!;
  groups.add(group);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) {
      await endGroup(group);
      throw new Error(`server exited with ${child.exitCode}: ${stderr}`);
    }
    if (performance.now() - started > timeoutMs) {
      await endGroup(group);
      throw new Error(`server did not answer within ${timeoutMs} ms: ${stderr}`);
    }
    try {
      if ((await fetch(`${url}/healthz`)).status < 500) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const startupMs = performance.now() - started;
  const nodePid = () => {
    if (prefix.length === 0) return child.pid;
    try {
      return (
        Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/)[0]) ||
        child.pid
      );
    } catch {
      return child.pid;
    }
  };
  const proc = (field: 'rss' | 'cpu') => {
    const pid = nodePid();
    try {
      if (field === 'rss')
        return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return (Number(stat[11]) + Number(stat[12])) / 100;
    } catch {
      return undefined;
    }
  };
  return {
    url,
    group,
    startupMs,
    rssBytes: () => proc('rss'),
    cpuSeconds: () => proc('cpu'),
    stop: () => endGroup(group),
  };
}
