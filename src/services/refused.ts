// What a use case answers when it says no, without knowing HTTP: the routes over the services (src/http) turn each
// into its status and the JSON error shape they always had. A service throws these; anything else it throws is a
// fault the routes log and answer 500.
import { BridgeError } from '../errors.ts';

/** One field of the request that cannot be used: answered 400 `{ error: "<field>: <why>", field }`. */
export class BadInput extends BridgeError<'bad_input'> {
  readonly field: string;
  constructor(field: string, message: string) {
    super('bad_input', `${field}: ${message}`);
    this.field = field;
  }
}

/** A request refused as a whole, with one line per reason: answered `{ error: lines joined by "; ", errors: lines }`. */
export class Refused extends BridgeError<'refused'> {
  readonly status: 400 | 403 | 404 | 409 | 413 | 422 | 429 | 502 | 503;
  readonly reasons: readonly string[];
  /** Sent with the answer: a Retry-After on a 429 or 503. */
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: Refused['status'], reasons: readonly string[], headers: Readonly<Record<string, string>> = {}) {
    super('refused', reasons.join('; '));
    this.status = status;
    this.reasons = reasons;
    this.headers = headers;
  }
}
