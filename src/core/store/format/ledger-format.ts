// The ledger's format: one number for everything the store holds, kept beside it (DATA_DIR/format.json, or
// the lb_ledger_format row) with the release that wrote it last. Older shapes are mended where they are read
// (upgrade-records.ts), and writes are always in the current format. Formats only grow: a newer ledger is
// refused at start, since this code would misread what the newer one wrote. The formats, and what a new one
// needs: docs/upgrading.md.
import packageJson from '../../../../package.json' with { type: 'json' };
import { BridgeError } from '../../../errors.ts';

export const LEDGER_FORMAT = 5;

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
