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
  crashes: number;
}

/** The tables that are leased queues: those with the leased columns. */
export type LeasedTable = {
  [T in keyof Tables]: Selectable<Tables[T]> extends LeasedColumns ? T : never;
}[keyof Tables];

/** Both tables have the leased columns; one view of them keeps each query below a single typed one. */
function leased(store: Store): Kysely<Record<LeasedTable, LeasedColumns & Record<string, unknown>>> {
  return store.db as unknown as Kysely<Record<LeasedTable, LeasedColumns & Record<string, unknown>>>;
}

/**
 * A row whose holder died with the lease this many times in a row (SIGKILL, a crash, out of memory while running it)
 * is parked: failed, with the reason, instead of being taken up again and killing the next worker.
 */
export const PARK_AFTER_CRASHES = 3;

/** The reason a parked row records. */
export const PARKED_REASON = `parked: the instance running it stopped ${PARK_AFTER_CRASHES} times in a row before it finished`;

/**
 * Leases up to `limit` due rows of `table` to `owner`. A row is taken only while nobody holds it, so two workers
 * never get the same row: PostgreSQL locks the rows it reads and skips rows another worker is taking right now;
 * SQLite runs one writer at a time anyway. A due row that still names a holder was left by one that died: its
 * `crashes` count goes up, and at PARK_AFTER_CRASHES it is parked (`errorColumn` says why) instead of taken.
 */
export function claimDueRows(
  store: Store,
  table: LeasedTable,
  errorColumn: string,
  owner: string,
  limit: number,
  leaseMs: number,
  now: number,
): Promise<string[]> {
  return store.write(async (tx) => {
    const db = leased(tx);
    const due = await forUpdateSkipLocked(
      tx,
      db
        .selectFrom(table)
        .select(['id', 'lease_owner', 'crashes'])
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where('lease_until', '<', now)
        .orderBy('next_attempt_at')
        .limit(limit),
    ).execute();
    if (!due.length) return [];
    const died = due.filter((r) => r.lease_owner !== null);
    const parked = died.filter((r) => Number(r.crashes) + 1 >= PARK_AFTER_CRASHES).map((r) => r.id);
    if (died.length) {
      await db
        .updateTable(table)
        .set((eb) => ({ crashes: eb('crashes', '+', 1) }))
        .where(
          'id',
          'in',
          died.map((r) => r.id),
        )
        .execute();
    }
    if (parked.length) {
      await db
        .updateTable(table)
        .set({ status: 'failed', lease_owner: null, lease_until: 0, [errorColumn]: PARKED_REASON })
        .where('id', 'in', parked)
        .execute();
    }
    const take = due.map((r) => r.id).filter((id) => !parked.includes(id));
    if (!take.length) return [];
    const rows = await db
      .updateTable(table)
      .set({ lease_owner: owner, lease_until: now + leaseMs })
      .where('id', 'in', take)
      .where('status', '=', 'pending')
      .where('lease_until', '<', now)
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  });
}

/**
 * Extends `owner`'s leases on the given rows that are still pending (a worker's heartbeat for the jobs it is running):
 * a live worker keeps its rows however long a send takes, and a dead one's rows are free once the lease ends.
 */
export async function renewLeases(
  store: Store,
  table: LeasedTable,
  owner: string,
  ids: string[],
  leaseMs: number,
  now: number,
): Promise<void> {
  if (!ids.length) return;
  await store.write(async (tx) => {
    await leased(tx)
      .updateTable(table)
      .set({ lease_until: now + leaseMs })
      .where('id', 'in', ids)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'pending')
      .execute();
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

/** One leased queue's claim, heartbeat and gauges, bound to its table. */
export interface LeasedQueue {
  /** Leases up to `limit` due rows to `owner` (see claimDueRows). */
  claimDue(store: Store, owner: string, limit: number, leaseMs: number, now: number): Promise<string[]>;
  /** Extends `owner`'s leases on `ids` (see renewLeases). */
  renew(store: Store, owner: string, ids: string[], leaseMs: number, now: number): Promise<void>;
  /** Rows waiting to be sent (due, or waiting for a retry) and the age of the oldest: the queue's gauges. */
  stats(store: Store, now: number): Promise<QueueStats>;
}

/** `errorColumn`: where the table records why a row failed (a parked row's reason goes there). */
export function leasedQueue(table: LeasedTable, errorColumn: string): LeasedQueue {
  return {
    claimDue: (store, owner, limit, leaseMs, now) =>
      claimDueRows(store, table, errorColumn, owner, limit, leaseMs, now),
    renew: (store, owner, ids, leaseMs, now) => renewLeases(store, table, owner, ids, leaseMs, now),
    stats: (store, now) => queueStats(store, table, now),
  };
}

// ---- Periodic jobs (job_leases, migration 2026120111) ------------------------------------------------------------
// A periodic job (the clean-up round) runs on one instance at a time: the one that takes its row's lease while the
// job is due. It renews the lease while it runs and, when done, frees it and sets when the job is next due. An
// instance that dies while running leaves a lease that runs out, and the job, still due, is taken by another.

/**
 * Takes the lease of job `name` for `owner` until `now + leaseMs` when the job is due (`next_run_at <= now`) and
 * nobody holds it. One conditional upsert: of several instances trying at once, exactly one gets it. True when
 * this call got it.
 */
export async function claimJobLease(
  store: Store,
  name: string,
  owner: string,
  leaseMs: number,
  now: number,
): Promise<boolean> {
  return store.write(async (tx) => {
    const row = await tx.db
      .insertInto('job_leases')
      .values({ name, owner, lease_until: now + leaseMs, next_run_at: 0 })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ owner, lease_until: now + leaseMs })
          .where('job_leases.lease_until', '<', now)
          .where('job_leases.next_run_at', '<=', now),
      )
      .returning('name')
      .executeTakeFirst();
    return row !== undefined;
  });
}

/** Extends `owner`'s lease of job `name` to `until`; false when it no longer holds it. */
export async function renewJobLease(
  store: Store,
  name: string,
  owner: string,
  until: number,
): Promise<boolean> {
  return store.write(async (tx) => {
    const result = await tx.db
      .updateTable('job_leases')
      .set({ lease_until: until })
      .where('name', '=', name)
      .where('owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  });
}

/** Frees `owner`'s lease of job `name` and sets when the job is next due. */
export async function finishJobLease(
  store: Store,
  name: string,
  owner: string,
  nextRunAt: number,
): Promise<void> {
  await store.write(async (tx) => {
    await tx.db
      .updateTable('job_leases')
      .set({ owner: null, lease_until: 0, next_run_at: nextRunAt })
      .where('name', '=', name)
      .where('owner', '=', owner)
      .execute();
  });
}
