// Telling instances of new work: a commit that makes work NOTIFYs lb_work,
// and each instance LISTENs on a session of its own (outside the pools, so
// the listener never takes a connection the work needs). A lost session is
// replaced after a second; instances poll besides, so a notice missed
// meanwhile only delays work.
import type pg from 'pg';

export class WorkNotifications {
  readonly #connect: () => Promise<pg.Client>;
  readonly #listeners: Array<() => void> = [];
  #session: pg.Client | undefined;
  #closed = false;
  #connecting = false;

  constructor(connect: () => Promise<pg.Client>) {
    this.#connect = connect;
  }

  onWork(listener: () => void): void {
    this.#listeners.push(listener);
  }

  /** New work made by this instance: its own loops hear at once. */
  local(): void {
    for (const listener of this.#listeners) listener();
  }

  /** A session LISTENing: one at a time, however often the store is opened; none once closed. */
  async listen(): Promise<void> {
    if (this.#closed || this.#connecting) return;
    this.#connecting = true;
    let session: pg.Client | undefined;
    const retry = () => {
      // Only for the session of the moment: an error on one close() ended is over.
      if (session && this.#session !== session) return;
      this.#session = undefined;
      void session?.end().catch(() => undefined);
      if (!this.#closed) setTimeout(() => void this.listen(), 1_000).unref();
    };
    try {
      if (this.#session) return;
      session = await this.#connect();
      // Every error is handled: one on a session already ended (the database going away at shutdown) is not the process's end.
      session.on('error', retry);
      // Closed while it connected: it would stay connected, unheard of, until the database went.
      if (this.#closed) return void (await session.end().catch(() => undefined));
      session.on('notification', () => this.local());
      // A session the server ended without an error (a restart) is replaced too.
      session.on('end', retry);
      this.#session = session;
      await session.query('LISTEN lb_work');
    } catch {
      retry();
    } finally {
      this.#connecting = false;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const session = this.#session;
    this.#session = undefined;
    await session?.end().catch(() => undefined);
  }
}
