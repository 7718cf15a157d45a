// CPU time spent, for figures per order: this process's own (the bridge, or
// a bare loop of clients), the sandbox's process and, where /proc shows them
// (a PostgreSQL on this machine), the database server's processes together.
// Wall time alone hides which one an order's cost falls on when they share
// two cores.
import { readdirSync, readFileSync } from 'node:fs';

export interface CpuTime {
  /** This process, milliseconds. */
  self: number;
  /** The sandbox's process, milliseconds, where it can be read. */
  sandbox: number | undefined;
  /**
   * PostgreSQL's processes that /proc lists, milliseconds: the server's own
   * (writers, checkpointer, autovacuum) and the sessions of the bench's
   * database, not those of other databases (another engineer's tests);
   * undefined where /proc does not show them.
   */
  postgres: number | undefined;
}

const TICKS_PER_SECOND = 100;

export function cpuTime(sandbox: { cpuSeconds(): number | undefined }, database?: string): CpuTime {
  const { user, system } = process.cpuUsage();
  const sandboxSeconds = sandbox.cpuSeconds();
  return {
    self: (user + system) / 1000,
    sandbox: sandboxSeconds === undefined ? undefined : sandboxSeconds * 1000,
    postgres: postgresCpu(database),
  };
}

export interface CpuPer {
  self: number;
  sandbox?: number;
  postgres?: number;
}

/** From one reading to the next, per unit of work (an order, a call). */
export function cpuPer(from: CpuTime, to: CpuTime, units: number): CpuPer {
  const per = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : Number(((b - a) / units).toFixed(3));
  return {
    self: per(from.self, to.self)!,
    ...(per(from.sandbox, to.sandbox) !== undefined ? { sandbox: per(from.sandbox, to.sandbox) } : {}),
    ...(per(from.postgres, to.postgres) !== undefined ? { postgres: per(from.postgres, to.postgres) } : {}),
  };
}

/** A session's title names its user, database and client ("postgres: 15/main: user db 127.0.0.1(5432) idle"). */
const SESSION = /^postgres: [^:]+: \S+ (\S+) (\S+\(\d+\)|\[local\])/;

function postgresCpu(database: string | undefined): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  let ticks = 0;
  let found = false;
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // pid (comm) state ppid ...: the name may hold spaces, so fields are counted from the last ')'.
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
      const session = SESSION.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '));
      if (session && database !== undefined && session[1] !== database) continue;
      const fields = stat.slice(close + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
      found = true;
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
}
