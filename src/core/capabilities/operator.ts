// What a platform adds to the operator's and merchants' view of it, and work it does on a timer of its own.

/** What the operator's panels and a merchant's page say of the platform in their words, beyond what every platform's says. */
export interface PlatformNotes {
  /** How to serve a shop whose deliveries were ignored as not served. */
  notServed: string;
  /** What needs the operator's eye now, each a sentence, for a banner. */
  attention(): Promise<string[]>;
  /** What a merchant's page says of its orders skipped for a reason only this platform gives, by reason: why, and the fix. */
  skipReasons: Readonly<Record<string, { why: string; fix: string }>>;
}

/** Work of its own on a timer (checks it owes its platform), started once everything is served and stopped first. */
export interface Background {
  start(): void;
  stop(): Promise<void>;
}
