// What the last calls to the loyalty service say about it: reachable, in
// backoff, or refusing our credentials. Fed by the client's attempt reports;
// read by /readyz, the admin status and the dashboard's banner.
import type { AttemptReport } from './client.ts';

export interface UpstreamHealthSnapshot {
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  lastFailure: { operation: string; outcome: string; httpStatus: number | null } | null;
  consecutiveFailures: number;
  /** The service refused our credentials: every call is paused until a probe is let in again. */
  credentialsRefused: boolean;
}

export class UpstreamHealth {
  #state: UpstreamHealthSnapshot = {
    lastSuccessAt: null,
    lastFailureAt: null,
    lastFailure: null,
    consecutiveFailures: 0,
    credentialsRefused: false,
  };
  readonly #now: () => Date;

  constructor(now: () => Date = () => new Date()) {
    this.#now = now;
  }

  #paused = false;

  /** The worker paused every call (refused credentials), or resumed: the alarm stays up while paused. */
  setPaused(paused: boolean): void {
    this.#paused = paused;
    this.#state = { ...this.#state, credentialsRefused: paused };
  }

  /** `ownCredentials`: the call used the environment's credentials (false: a stored account's, paused on its own). */
  record(report: AttemptReport, { ownCredentials = true }: { ownCredentials?: boolean } = {}): void {
    const at = this.#now().toISOString();
    // Another account's answer says nothing of the environment's credentials.
    const refused = (now: boolean) => (ownCredentials ? this.#paused || now : this.#state.credentialsRefused);
    if (report.outcome === 'success') {
      this.#state = { ...this.#state, lastSuccessAt: at, consecutiveFailures: 0, credentialsRefused: refused(false) };
      return;
    }
    this.#state = {
      ...this.#state,
      lastFailureAt: at,
      lastFailure: { operation: report.operation, outcome: report.outcome, httpStatus: report.httpStatus ?? null },
      consecutiveFailures: this.#state.consecutiveFailures + 1,
      credentialsRefused: refused(report.outcome === 'invalid_auth'),
    };
  }

  snapshot(): UpstreamHealthSnapshot {
    return { ...this.#state };
  }
}
