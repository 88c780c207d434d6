// Advisory locks: keys (any text) that concurrent writes take in turn, held until the write commits. PostgreSQL
// only: SQLite runs one write at a time (BEGIN IMMEDIATE, see write-batch.ts), so there is nothing to wait for.
import { statement } from './sql.js';
import type { Tx } from './store.js';

/**
 * PostgreSQL text that takes the advisory locks of the keys in its one parameter (a text[]), in their order, one
 * row per key: for a statement that takes them along with what else it reads (`select count(*) from (…)`).
 */
export const ADVISORY_LOCKS_SQL = 'select pg_advisory_xact_lock(hashtext(k)) from unnest(?::text[]) as k';
const LOCK = statement(`select count(*) as n from (${ADVISORY_LOCKS_SQL}) as locks`);

/**
 * Takes the advisory locks of `keys` in their order (callers sort them the same way, so two waiters never hold
 * each other's lock), held until the write commits. Nothing on SQLite.
 */
export async function takeAdvisoryLocks(tx: Tx, keys: readonly string[]): Promise<void> {
  if (tx.dialect !== 'postgres' || !keys.length) return;
  await tx.all(LOCK, [keys]);
}
