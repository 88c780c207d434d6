// The SQL of a leased queue (webhook deliveries, the email outbox): claiming due rows, and the queue's depth. Any
// table with the leased columns is one; src/platform/queue/ holds the worker that uses them.
import type { Kysely, Selectable } from 'kysely';
import { forUpdateSkipLocked } from './portable.js';
import type { Tables } from './schema.js';
import type { Store } from './store.js';

/** The columns every leased queue table has. */
interface LeasedColumns {
  id: string;
  status: string;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number;
  created_at: number;
}

/** The tables that are leased queues: those with the leased columns. */
export type LeasedTable = {
  [T in keyof Tables]: Selectable<Tables[T]> extends LeasedColumns ? T : never;
}[keyof Tables];

/** Both tables have the leased columns; one view of them keeps each query below a single typed one. */
function leased(store: Store): Kysely<Record<LeasedTable, LeasedColumns>> {
  return store.db as unknown as Kysely<Record<LeasedTable, LeasedColumns>>;
}

/**
 * Leases up to `limit` due rows of `table` to `owner`. One conditional UPDATE: a row is taken only while nobody
 * holds it, so two workers never get the same row. PostgreSQL skips rows another worker is taking right now
 * instead of waiting for it; SQLite runs one writer at a time anyway.
 */
export function claimDueRows(
  store: Store,
  table: LeasedTable,
  owner: string,
  limit: number,
  leaseMs: number,
  now: number,
): Promise<string[]> {
  return store.write(async (tx) => {
    const db = leased(tx);
    const due = forUpdateSkipLocked(
      tx,
      db
        .selectFrom(table)
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where('lease_until', '<', now)
        .orderBy('next_attempt_at')
        .limit(limit),
    );
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

/** How much a queue holds: its pending jobs (due or waiting for a retry) and the age of the oldest. */
export interface QueueStats {
  depth: number;
  /** Seconds since the oldest pending job was queued; 0 when there is none. */
  oldestAgeSeconds: number;
}

/** The pending jobs of `table` and the age of the oldest at `now`: one query. */
export async function queueStats(store: Store, table: LeasedTable, now: number): Promise<QueueStats> {
  const row = await leased(store)
    .selectFrom(table)
    .select((eb) => [
      eb.fn.countAll<number | string>().as('depth'),
      eb.fn.min<number | string | null>('created_at').as('oldest'),
    ])
    .where('status', '=', 'pending')
    .executeTakeFirst();
  const oldest = row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest);
  return {
    depth: Number(row?.depth ?? 0),
    oldestAgeSeconds: oldest === null ? 0 : Math.max(0, (now - oldest) / 1000),
  };
}

/** One leased queue's claim and gauges, bound to its table. */
export interface LeasedQueue {
  /** Leases up to `limit` due rows to `owner` (see claimDueRows). */
  claimDue(store: Store, owner: string, limit: number, leaseMs: number, now: number): Promise<string[]>;
  /** Rows waiting to be sent (due, or waiting for a retry) and the age of the oldest: the queue's gauges. */
  stats(store: Store, now: number): Promise<QueueStats>;
}

export function leasedQueue(table: LeasedTable): LeasedQueue {
  return {
    claimDue: (store, owner, limit, leaseMs, now) => claimDueRows(store, table, owner, limit, leaseMs, now),
    stats: (store, now) => queueStats(store, table, now),
  };
}
