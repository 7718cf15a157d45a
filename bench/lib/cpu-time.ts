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
  /** Every process named postgres that /proc lists, milliseconds; undefined where /proc does not show them. */
  postgres: number | undefined;
}

const TICKS_PER_SECOND = 100;

export function cpuTime(sandbox: { cpuSeconds(): number | undefined }): CpuTime {
  const { user, system } = process.cpuUsage();
  const sandboxSeconds = sandbox.cpuSeconds();
  return {
    self: (user + system) / 1000,
    sandbox: sandboxSeconds === undefined ? undefined : sandboxSeconds * 1000,
    postgres: postgresCpu(),
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

function postgresCpu(): number | undefined {
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
      const fields = stat.slice(close + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
      found = true;
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
}
