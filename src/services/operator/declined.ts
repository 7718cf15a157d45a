// A request the operator's routes refuse in one line, answered `{ error }` alone, as they always have been: a
// Refused's answer adds `errors`, which these answers never carried.
import { BridgeError } from '../../errors.ts';

export class Declined extends BridgeError<'declined'> {
  readonly status: 404 | 409 | 422;
  constructor(status: Declined['status'], message: string) {
    super('declined', message);
    this.status = status;
  }
}
