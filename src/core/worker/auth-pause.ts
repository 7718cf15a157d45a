// Refused credentials stop everything: every call would fail the same way,
// and dead-lettering the orders one after the other would bury the merchant
// in letters that all say the same thing. So the first 401 pauses the
// worker, raises the alarm once, and a probe (a harmless read) asks the
// service again with backoff; calls resume when the probe is let in.
import type { Logger } from '../../logger.ts';
import { LoyaltyError } from '../../loyalty/errors.ts';

export interface AuthPauseOptions {
  /** The account whose credentials these are, for the alarm (accounts.ts); the default account's names the settings. */
  account?: { id: string; name: string } | undefined;
  /** A read that changes nothing on the service. */
  probe: () => Promise<unknown>;
  logger: Logger;
  onResume: () => void;
  onChange?: (paused: boolean) => void;
  minProbeDelayMs?: number;
  maxProbeDelayMs?: number;
}

export class AuthPause {
  readonly #o: Required<Omit<AuthPauseOptions, 'onChange' | 'account'>> &
    Pick<AuthPauseOptions, 'onChange' | 'account'>;
  #nextProbeAt: number | undefined;
  #paused = false;
  #since: string | null = null;
  #timer: NodeJS.Timeout | undefined;
  #delay: number;
  #stopped = false;
  /** A probe is under way (it waits its turn in the limiter, and may wait out a Retry-After). */
  #probing = false;

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

  /**
   * While paused, when the account's orders are looked at again (ISO): the next probe, or, while a probe is under
   * way, a probe's delay from now (its start is past: orders let go until then would be due at once, again and
   * again, until it answers). The account's resume wakes them sooner.
   */
  get nextProbeAt(): string | null {
    if (!this.#paused) return null;
    if (this.#probing) return new Date(Date.now() + this.#delay).toISOString();
    return this.#nextProbeAt !== undefined ? new Date(this.#nextProbeAt).toISOString() : null;
  }

  /** The service refused our credentials: pause, once, and start probing. */
  pause(): void {
    if (this.#paused || this.#stopped) return;
    this.#paused = true;
    this.#since = new Date().toISOString();
    this.#delay = this.#o.minProbeDelayMs;
    const account = this.#o.account;
    if (!account || account.id === 'default') {
      this.#o.logger.error(
        { account: account?.id },
        'the loyalty service refuses our credentials: every call of the default account is paused until it lets us in again. Check LOYALTY_API_KEY and LOYALTY_BRAND_ID; calls resume by themselves once they are right',
      );
    } else {
      this.#o.logger.error(
        { account: account.id },
        `the loyalty service refuses the credentials of the account ${account.name}: its calls are paused until it lets it in again (the other accounts go on). Check its API key and brand id; calls resume by themselves once they are right`,
      );
    }
    this.#o.onChange?.(true);
    this.#schedule();
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    if (this.#stopped) return;
    this.#nextProbeAt = Date.now() + this.#delay;
    this.#timer = setTimeout(() => void this.#probe(), this.#delay);
    this.#timer.unref();
  }

  async #probe(): Promise<void> {
    this.#probing = true;
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
    } finally {
      this.#probing = false;
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
