// Leases kept alive while their work runs. Each claim has an owner token of
// its own; a renewal extends the lease of the claims whose row still carries
// their token, expired or not: a lease that ran out while nobody claimed the
// row is still its holder's, since claiming it would have changed the token.
import type { Claim, ClaimKind } from '../ledger-store.ts';
import type { PgDatabase } from './database.ts';

const TABLES: Record<ClaimKind, string> = { orders: 'lb_orders', inbox: 'lb_inbox' };

export async function renewClaims(db: PgDatabase, kind: ClaimKind, claims: Claim[], leaseMs: number): Promise<Claim[]> {
  if (claims.length === 0) return [];
  // Rows locked in key order, as intake locks orders, so a renewal and a fold never wait on each other in a cycle.
  const { rows } = await db.write<Claim>(
    `WITH held AS (SELECT t.key FROM ${TABLES[kind]} AS t JOIN unnest($1::text[], $2::text[]) AS c(key, owner) ON t.key = c.key AND t.lease_owner = c.owner
                    ORDER BY t.key FOR UPDATE OF t)
     UPDATE ${TABLES[kind]} AS t SET lease_until = now() + $3 * interval '1 millisecond' FROM held WHERE t.key = held.key
     RETURNING t.key, t.lease_owner AS owner`,
    [claims.map((claim) => claim.key), claims.map((claim) => claim.owner), leaseMs],
    'lease',
  );
  return rows;
}
