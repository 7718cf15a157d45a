// One base for the errors the bridge expects to meet while it runs (a store that refuses, a ledger in use, a
// lease lost, a refused address): a stable `code` that callers decide on, never the message's words, and,
// where a person can act, the `fix`. The message stays the whole line a person reads, fix included, so
// whoever prints only the message loses nothing. Programming errors stay plain Errors.

export interface BridgeErrorOptions {
  /** What a person does about it, when there is something to do. */
  fix?: string | undefined;
  cause?: unknown;
}

export class BridgeError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly fix: string | undefined;

  constructor(code: Code, message: string, options: BridgeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.fix = options.fix;
  }
}

/** The code of an error the bridge knows, for logs and metrics; `unexpected` for anything else. */
export const errorCode = (error: unknown): string => (error instanceof BridgeError ? error.code : 'unexpected');
