// Words for the person at this terminal that must not land in collected logs: a sign-in made for this run
// carries a token that opens every customer's data. Printed when standard output is a terminal; otherwise
// (stdout is where the log goes, and where collectors read) written to an owner-only file in DATA_DIR, and
// the log line says only where it is.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from './logger.ts';

export interface TerminalNotice {
  text: string;
  /** The file in DATA_DIR it goes to when stdout is not a terminal. */
  fileName: string;
  dataDir: string;
  logger: Logger;
  /** Whether stdout is a terminal: process.stdout.isTTY unless a test says. */
  isTerminal?: boolean;
}

export function tellThePersonAtTheTerminal({
  text,
  fileName,
  dataDir,
  logger,
  isTerminal = Boolean(process.stdout.isTTY),
}: TerminalNotice): void {
  if (isTerminal) {
    process.stdout.write(`\n${text}\n\n`);
    return;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, fileName);
  // Written beside it and renamed into place: whoever reads the file (the operator, a script waiting for it) never
  // finds it there empty or half written.
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${text}\n`, { mode: 0o600 });
  renameSync(temporary, path);
  logger.info(
    { file: path },
    `standard output is not a terminal, so what would be printed for the person at it is in ${path} (readable by this user only)`,
  );
}
