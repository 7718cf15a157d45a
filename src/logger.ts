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

export function createLogger({ level = 'info', pretty = process.stdout.isTTY === true, destination }: LoggerOptions = {}): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'loyalty-bridge' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  if (destination) return pino(options, destination);
  if (pretty) return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,service' } } });
  return pino(options);
}
