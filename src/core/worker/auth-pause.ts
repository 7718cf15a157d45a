// Refused credentials stop everything: every call would fail the same way,
// and dead-lettering the orders one after the other would bury the merchant
// in letters that all say the same thing. So the first 401 pauses the
// worker, raises the alarm once, and a probe (a harmless read) asks the
// service again with backoff; calls resume when the probe is let in.
import type { Logger } from '../../logger.ts';
import { LoyaltyError } from '../../loyalty/errors.ts';

export interface AuthPauseOptions {
  /** A read that changes nothing on the service. */
  probe: () => Promise<unknown>;
  logger: Logger;
  onResume: () => void;
  onChange?: (paused: boolean) => void;
  minProbeDelayMs?: number;
  maxProbeDelayMs?: number;
}

export class AuthPause {
  readonly #o: Required<Omit<AuthPauseOptions, 'onChange'>> & Pick<AuthPauseOptions, 'onChange'>;
  #paused = false;
  #since: string | null = null;
  #timer: NodeJS.Timeout | undefined;
  #delay: number;
  #stopped = false;

  constructor(options: AuthPauseOptions) {
    this.#o = { minProbeDelayMs: 15_000, maxProbeDelayMs: 5 * 60_000, ...options };
    this.#delay = this.#o.minProbeDelayMs;
  }

  get paused(): boolean {
    return this.#paused;
  }

  get since(): string | null {
    return this.#since;
  }

  /** The service refused our credentials: pause, once, and start probing. */
  pause(): void {
    if (this.#paused || this.#stopped) return;
    this.#paused = true;
    this.#since = new Date().toISOString();
    this.#delay = this.#o.minProbeDelayMs;
    this.#o.logger.error(
      'the loyalty service refuses our credentials: every call is paused until it lets us in again. Check LOYALTY_API_KEY and LOYALTY_BRAND_ID; calls resume by themselves once they are right',
    );
    this.#o.onChange?.(true);
    this.#schedule();
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#probe(), this.#delay);
    this.#timer.unref();
  }

  async #probe(): Promise<void> {
    try {
      await this.#o.probe();
    } catch (error) {
      const refused = error instanceof LoyaltyError && error.kind === 'invalid_auth';
      // Let in but told no (an unknown customer, say): the credentials are good again.
      const letIn = error instanceof LoyaltyError && !error.retryable && !refused;
      if (!letIn) {
        this.#delay = Math.min(this.#o.maxProbeDelayMs, this.#delay * 2);
        return this.#schedule();
      }
    }
    this.#paused = false;
    this.#since = null;
    this.#o.logger.info('the loyalty service accepts our credentials again: calls resume');
    this.#o.onChange?.(false);
    this.#o.onResume();
  }

  /** Asks the service now instead of at the next probe (the merchant says the credentials are right again); resolves with whether calls are still paused. */
  async probeNow(): Promise<boolean> {
    if (!this.#paused || this.#stopped) return this.#paused;
    clearTimeout(this.#timer);
    await this.#probe();
    return this.#paused;
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }
}
