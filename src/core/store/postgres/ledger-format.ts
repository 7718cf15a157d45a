// The ledger's format on PostgreSQL, checked under the migration lock before any migration runs, so that a
// newer ledger is refused as it is. An instance of an older format still connected would misread what the
// new one writes, so while one is (its connections' application_name names its format) the upgrade is
// refused, with a line naming them (docs/upgrading.md).
import type pg from 'pg';
import { BridgeError } from '../../../errors.ts';
import { checkMark, currentMark, LEDGER_FORMAT, type FormatMark } from '../format/ledger-format.ts';

/** What this release's connections are called: an instance of another format tells them apart by it. */
export const APPLICATION_NAME = `loyalty-bridge format=${LEDGER_FORMAT}`;

export class OlderInstancesConnectedError extends BridgeError<'older_instances_connected'> {
  constructor(instances: string[]) {
    const fix =
      'Stop every loyalty-bridge instance on this database, start one of this release (it upgrades the ledger), then start the others.';
    super(
      'older_instances_connected',
      `The ledger needs its format raised to ${LEDGER_FORMAT}, but loyalty-bridge instances of an older release are connected to the database (${instances.join('; ')}): they would misread what this one writes. ${fix}`,
      { fix },
    );
  }
}

async function readMark(client: pg.Client): Promise<{ mark: FormatMark | undefined; hadLedger: boolean }> {
  const { rows } = await client.query<{ format: string | null; orders: string | null }>(
    `SELECT to_regclass('lb_ledger_format')::text AS format, to_regclass('lb_orders')::text AS orders`,
  );
  const hadLedger = rows[0]?.orders != null;
  if (rows[0]?.format == null) return { mark: undefined, hadLedger };
  const found = await client.query<{ format: number; written_by: string; at: Date }>(
    'SELECT format, written_by, at FROM lb_ledger_format',
  );
  const row = found.rows[0];
  return {
    mark: row ? { format: row.format, writtenBy: row.written_by, at: row.at.toISOString() } : undefined,
    hadLedger,
  };
}

/** Before the migrations: refuses a newer ledger, and an upgrade while older instances are connected. Says whether the mark needs writing. */
export async function checkLedgerFormat(
  client: pg.Client,
  where: string,
): Promise<{ write: boolean; from: number | undefined; hadLedger: boolean }> {
  const { mark, hadLedger } = await readMark(client);
  const { upgradeFrom } = checkMark(where, mark);
  if (upgradeFrom !== undefined && hadLedger) {
    const { rows } = await client.query<{ pid: number; application_name: string; client_addr: string | null }>(
      `SELECT pid, application_name, client_addr::text FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND application_name LIKE 'loyalty-bridge%' AND application_name <> $1`,
      [APPLICATION_NAME],
    );
    if (rows.length > 0)
      throw new OlderInstancesConnectedError(
        rows.map((row) => `${row.application_name} from ${row.client_addr ?? 'this host'}, pid ${row.pid}`),
      );
  }
  return { write: upgradeFrom !== undefined, from: upgradeFrom, hadLedger };
}

export async function writeLedgerFormat(client: pg.Client): Promise<void> {
  const mark = currentMark();
  await client.query(
    `INSERT INTO lb_ledger_format (one, format, written_by, at) VALUES (true, $1, $2, $3)
       ON CONFLICT (one) DO UPDATE SET format = EXCLUDED.format, written_by = EXCLUDED.written_by, at = EXCLUDED.at`,
    [mark.format, mark.writtenBy, mark.at],
  );
}
