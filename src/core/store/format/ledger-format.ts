// The ledger's format: one number for everything the store holds, kept beside
// it (DATA_DIR/format.json, or the lb_ledger_format row) with the release
// that wrote it last. Each format's shapes are read by the upgrade functions
// of upgrade-records.ts, one per record kind, at the one place each kind is
// read; writes are always in the current format. Formats only grow: a ledger
// marked with a newer format than this code knows is refused at start, since
// this code would misread what the newer one wrote.
//
// The formats, oldest first (add a line, and a step in upgrade-records.ts,
// with each change; keep the test data of every earlier release working):
//   0  releases up to 7a1c4ad, which wrote no mark. Orders may lack version,
//      foldVersion and dueAt, and keep refunds as plain amount strings;
//      inbox entries may lack aliases and retry; settled chunk summaries may
//      lack attention; the oldest lowdb ledgers keep shops.json,
//      reconciliation.json and adjustments.json outside records/.
//   1  the mark itself; every shape of format 0 read as above.
//   2  secrets at rest: the secret fields of records (record-secrets.ts lists
//      them) may be sealed, "sealed:v1:<key id>:...", under SECRETS_KEY; a
//      plain value, as format 1 kept every one, is read as plain, and sealed
//      at the first start with a key. Format 1 releases would hand a sealed
//      value to a platform as if it were the token.
//   3  loyalty accounts: each order names the account of its first call
//      (upstream.account); an order of an earlier format that made a call
//      belongs to the default account. Accounts, shop links and the audit
//      are records of their own kinds.
import packageJson from '../../../../package.json' with { type: 'json' };
import { BridgeError } from '../../../errors.ts';

export const LEDGER_FORMAT = 3;

/** The release that writes the mark: what an operator reads when a ledger is refused. */
export const WRITTEN_BY = `loyalty-bridge ${packageJson.version} (ledger format ${LEDGER_FORMAT})`;

export interface FormatMark {
  format: number;
  writtenBy: string;
  at: string;
}

export const currentMark = (now: Date = new Date()): FormatMark => ({
  format: LEDGER_FORMAT,
  writtenBy: WRITTEN_BY,
  at: now.toISOString(),
});

export class LedgerTooNewError extends BridgeError<'ledger_too_new'> {
  readonly mark: FormatMark;
  constructor(where: string, mark: FormatMark) {
    const fix = `Run ${mark.writtenBy.replace(/ \(ledger format \d+\)$/, '')} or a newer release; this one cannot go back to an older format.`;
    super(
      'ledger_too_new',
      `The ledger in ${where} was written by ${mark.writtenBy}, format ${mark.format}; this is ${WRITTEN_BY}, which reads format ${LEDGER_FORMAT} and older. ${fix}`,
      { fix },
    );
    this.mark = mark;
  }
}

/** What a store does with the mark it found: nothing (current), write the current one (older or none), or refuse (newer). */
export function checkMark(where: string, mark: FormatMark | undefined): { upgradeFrom: number | undefined } {
  if (mark === undefined) return { upgradeFrom: 0 };
  if (!Number.isInteger(mark.format) || mark.format < 0)
    throw new Error(`the ledger's format mark in ${where} is not one loyalty-bridge writes`);
  if (mark.format > LEDGER_FORMAT) throw new LedgerTooNewError(where, mark);
  return { upgradeFrom: mark.format < LEDGER_FORMAT ? mark.format : undefined };
}
