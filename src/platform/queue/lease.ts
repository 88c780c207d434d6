// Claiming due rows of a leased queue (webhook deliveries, the email outbox): the one statement both share.
import type { Kysely } from 'kysely';
import type { Store } from '../db/store.js';

/** The columns every leased queue table has. */
interface LeasedRow {
  id: string;
  status: string;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number;
}

/**
 * Leases up to `limit` due rows of `table` to `owner`. One conditional UPDATE: a row is taken only while nobody
 * holds it, so two workers never get the same row. PostgreSQL skips rows another worker is taking right now
 * instead of waiting for it; SQLite runs one writer at a time anyway.
 */
export function claimDueRows(
  store: Store,
  table: 'webhook_deliveries' | 'email_outbox',
  owner: string,
  limit: number,
  leaseMs: number,
  now: number,
): Promise<string[]> {
  return store.write(async (tx) => {
    // Both tables have the leased columns; one view of them keeps this a single typed query.
    const db = tx.db as unknown as Kysely<Record<typeof table, LeasedRow>>;
    const due = db
      .selectFrom(table)
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where('lease_until', '<', now)
      .orderBy('next_attempt_at')
      .limit(limit)
      .$if(tx.dialect === 'postgres', (q) => q.forUpdate().skipLocked());
    const rows = await db
      .updateTable(table)
      .set({ lease_owner: owner, lease_until: now + leaseMs })
      .where('id', 'in', due)
      .where('status', '=', 'pending')
      .where('lease_until', '<', now)
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  });
}
