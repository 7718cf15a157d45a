// The shops a platform serves: which they are, what their merchants call them, which the operator chose, and the
// moves of what earlier releases kept of them.
export interface Shops {
  /** Every shop of the platform the bridge knows (installed, connected, allowed by name). */
  list(): Promise<string[]>;
  /**
   * What its merchant calls the shop, for the shop's own page ("Signed in to …"): its name as the platform tells
   * it (read once, when it connects, or at the first ask for one connected before; kept in the module's records),
   * else an address of it a person reads. Never a key; plain text (the page shows it as text), at most 100
   * characters. Undefined: the shop as the bridge names it.
   */
  storeName(shop: string): Promise<string | undefined>;
  /** Whether the operator chose this shop: it earns on the default account. */
  chosenByOperator(shop: string): Promise<boolean>;
  /** Once the ledger is open, before anything is served: moves of what earlier releases kept. */
  prepare(foldInbox: () => Promise<void>): Promise<void>;
}
