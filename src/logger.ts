// One pino logger for the process: JSON lines for machines, pretty lines when
// a person is watching a terminal. Secrets and customer contact details are
// redacted wherever they appear in a logged object.
import pino, { type Logger } from 'pino';

export type { Logger };

const REDACTED_PATHS = [
  'apiKey',
  'api_key',
  'secret',
  'token',
  'password',
  'authorization',
  'email',
  'mobile',
  'phone',
  'lp_email',
  'lp_mobile',
  'referee_email',
  '*.apiKey',
  '*.secret',
  '*.token',
  '*.password',
  '*.authorization',
  '*.email',
  '*.mobile',
  '*.phone',
  '*.lp_email',
  '*.lp_mobile',
  '*.referee_email',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers["x-api-key"]',
];

export interface LoggerOptions {
  level?: string;
  /** Pretty output; defaults to whether stdout is a terminal. */
  pretty?: boolean;
  destination?: pino.DestinationStream;
}

export function createLogger({
  level = 'info',
  pretty = process.stdout.isTTY === true,
  destination,
}: LoggerOptions = {}): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'loyalty-bridge' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  if (destination) return pino(options, destination);
  if (pretty)
    return pino({
      ...options,
      // Written as it comes (sync): once flush() returns, what was logged is on the terminal, and words printed
      // for the person at it (terminal-notice.ts) come below it. A line's details on that line (an error's stack
      // still below it): a start's fifteen lines of settings scrolled the links away.
      transport: {
        target: 'pino-pretty',
        options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service', sync: true, singleLine: true },
      },
    });
  return pino(options);
}

/** A logger for lines whose every field is a plain string the caller names (ids, names, results). */
export interface PlainLines {
  info(fields: Record<string, string>, message: string): void;
  debug(fields: Record<string, string>, message: string): void;
}

/**
 * The logger without redaction, for the one line every delivery writes (the
 * webhook route's): redaction walks every path above for every line, two
 * thirds of that line's cost, and in a burst of thousands a second it was a
 * few per cent of the bridge's time. Safe only because its fields are plain
 * strings the caller names, none of them a secret or a customer's contact:
 * no object from a delivery can reach it.
 */
export function plainLines(logger: Logger): PlainLines {
  const child = logger.child({}, { redact: [] });
  return {
    info: (fields, message) => child.info(fields, message),
    debug: (fields, message) => child.debug(fields, message),
  };
}
