// A lease's heartbeat: intake holds inbox entries and the worker holds orders, and both renew what they hold the same way.

/** What a lease is on: an order (the worker) or an inbox entry (intake). */
export type ClaimKind = 'orders' | 'inbox';

/** One claimed order or inbox entry, and the owner token it was claimed under (one per claim, so that two claims of one key are told apart). */
export interface Claim {
  key: string;
  owner: string;
}

export interface ClaimRenewal {
  /**
   * The heartbeat of work under way: extends by leaseMs the leases of these
   * claims (orders from claimDue, or inbox entries from claimInbox) and
   * returns those still held. A claim missing from the answer was released,
   * or claimed anew (by another instance, or another claim of this one) after
   * its lease expired: its holder must stop working on it.
   */
  renewClaims(kind: ClaimKind, claims: Claim[], leaseMs: number): Promise<Claim[]>;
}
