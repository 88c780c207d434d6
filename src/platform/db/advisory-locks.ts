// Advisory locks: keys (any text) that concurrent writes take in turn, held until the write commits. PostgreSQL
// only: SQLite runs one write at a time (BEGIN IMMEDIATE, see write-batch.ts), so there is nothing to wait for.
import { statement } from './sql.js';
import type { Tx } from './store.js';

/** How a key shared (sharedLockKey) begins: it is the same lock as the key without it. */
const SHARED = 's:';

/**
 * The key `key` taken shared: any number of writes hold it together, and none of them while another holds it
 * alone (the key as it is). The same key, shared or not, is the same lock.
 */
export const sharedLockKey = (key: string): string => SHARED + key;

/**
 * PostgreSQL text that takes the advisory locks of the keys in its one parameter (a text[]), in their order, one
 * row per key (a key of sharedLockKey shared, any other alone): for a statement that takes them along with what
 * else it reads (`select count(*) from (…)`).
 */
export const ADVISORY_LOCKS_SQL =
  `select case when left(k, ${SHARED.length}) = '${SHARED}' ` +
  `then pg_advisory_xact_lock_shared(hashtext(substr(k, ${SHARED.length + 1}))) ` +
  'else pg_advisory_xact_lock(hashtext(k)) end from unnest(?::text[]) as k';
const LOCK = statement(`select count(*) as n from (${ADVISORY_LOCKS_SQL}) as locks`);

/**
 * Takes the advisory locks of `keys` in their order, those of sharedLockKey shared (callers sort them the same
 * way, so two waiters never hold each other's lock), held until the write commits. Nothing on SQLite.
 */
export async function takeAdvisoryLocks(tx: Tx, keys: readonly string[]): Promise<void> {
  if (tx.dialect !== 'postgres' || !keys.length) return;
  await tx.all(LOCK, [keys]);
}
