// What SQLite and PostgreSQL spell differently, spelled once: row locks and insert-or-get. Domain code and the
// capabilities' queries call these and never test `dialect` themselves.
//
// Row locks exist on PostgreSQL only. SQLite runs one write at a time (a write holds the database from its first
// statement: BEGIN IMMEDIATE, see write-batch.ts), so a row a write has read cannot change under it and nothing
// needs locking; the helpers leave the SQL as it is there.
import type { Insertable, Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { Tables } from './schema.js';
import { type Statement, statement } from './sql.js';
import type { Store, Tx } from './store.js';

/**
 * `… for update` on PostgreSQL: the rows the query selects stay locked until the write commits, so a concurrent
 * write locking them waits and then reads what this one wrote. SQLite: the query as it is.
 */
export function forUpdate<DB, TB extends keyof DB, O>(
  store: Pick<Store, 'dialect'>,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return store.dialect === 'postgres' ? query.forUpdate() : query;
}

/**
 * `… for update skip locked` on PostgreSQL: rows another transaction holds are left out instead of waited for
 * (queue workers taking due rows never wait on each other). SQLite: the query as it is.
 */
export function forUpdateSkipLocked<DB, TB extends keyof DB, O>(
  store: Pick<Store, 'dialect'>,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return store.dialect === 'postgres' ? query.forUpdate().skipLocked() : query;
}

/** The tables with a text primary key named id. */
export type TableWithId = {
  [T in keyof Tables]: Selectable<Tables[T]> extends { id: string } ? T : never;
}[keyof Tables];

/**
 * Locks one row of `table` by its id for the rest of the write (PostgreSQL; see forUpdate), e.g. a parent row
 * every writer of its children locks first, so they take turns. Returns whether the row exists.
 */
export async function lockRow(tx: Tx, table: TableWithId, id: string): Promise<boolean> {
  // Every table named has an id column; one view of them keeps this a single typed query.
  const db = tx.db as unknown as Kysely<Record<TableWithId, { id: string }>>;
  const rows = await forUpdate(tx, db.selectFrom(table).select('id').where('id', '=', id)).execute();
  return rows.length > 0;
}

/**
 * A hand-written statement (see sql.ts) that locks the rows it selects on PostgreSQL: `text` followed by
 * `for update` (or `for update skip locked`) there, `text` as it is on SQLite. `text` must be a select that
 * allows a locking clause at its end (no aggregate, no DISTINCT, no set operation).
 */
export function lockingStatement(
  text: string,
  options: { skipLocked?: boolean; planPerCall?: boolean } = {},
): Statement {
  const locked = statement(`${text} for update${options.skipLocked ? ' skip locked' : ''}`);
  return {
    sqlite: text,
    get postgres() {
      return locked.postgres;
    },
    ...(options.planPerCall ? { planPerCall: true } : {}),
  };
}

/** A row of `table` that insertOrGet found or inserted, with the columns it was asked for. */
export interface FoundOrInserted<T extends keyof Tables, C extends keyof Selectable<Tables[T]>> {
  /** True when this call inserted it; false when a row with the same key was there already. */
  inserted: boolean;
  row: Pick<Selectable<Tables[T]>, C>;
}

/**
 * Inserts `values` into `table` unless a row with the same `key` (a primary key or unique index: its columns)
 * exists, and returns the row either way: the one inserted (RETURNING), or the one that was there (read by its
 * key values, `for update` on PostgreSQL when `lock` is set). `INSERT … ON CONFLICT (key) DO NOTHING RETURNING`,
 * which both databases run; of two writes inserting the same key at once exactly one inserts. undefined only when
 * the row that was there was deleted between the two statements (PostgreSQL, concurrent writes): try again.
 */
export async function insertOrGet<
  T extends keyof Tables,
  K extends keyof Insertable<Tables[T]> & keyof Selectable<Tables[T]> & string,
  C extends keyof Selectable<Tables[T]> & string,
>(
  store: Store,
  table: T,
  values: Insertable<Tables[T]> & { [key in K]: unknown },
  key: readonly K[],
  returning: readonly C[],
  options: { lock?: boolean } = {},
): Promise<FoundOrInserted<T, C> | undefined> {
  // Kysely cannot check a query over a table named by a type parameter; the signature above types what goes in
  // and comes out, and this view of the tables is the untyped middle.
  const db = store.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const name: string = table;
  const inserted = await db
    .insertInto(name)
    .values(values as Record<string, unknown>)
    .onConflict((oc) => oc.columns([...key]).doNothing())
    .returning([...returning])
    .executeTakeFirst();
  if (inserted) return { inserted: true, row: inserted as Pick<Selectable<Tables[T]>, C> };
  const given = values as Record<string, unknown>;
  let existing = db.selectFrom(name).select([...returning]);
  for (const column of key) existing = existing.where(column as string, '=', given[column]);
  const row = await (options.lock ? forUpdate(store, existing) : existing).executeTakeFirst();
  return row ? { inserted: false, row: row as Pick<Selectable<Tables[T]>, C> } : undefined;
}
