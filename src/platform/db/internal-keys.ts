// How a lead or an address names its customer and address in a query: on SQLite through their internal integer
// keys (migration 2026120801), on PostgreSQL through their ids.
//
// Customer and address ids are random (the API contract), so on SQLite an index that starts with one puts each new
// entry on a random page, one more page for the WAL and the checkpoint per create; the indexes that find a
// customer's or an address's rows start with the key instead, given in insert order. PostgreSQL has no such cost
// worth the change (its creates were already faster than before their features), and it sends a create's inserts
// as one statement (combinedInserts), in which an insert cannot read the key of a row inserted beside it: there the
// links stay the ids.
//
// A key is always read from its row's id in the same statement, so it can't be other than the id's; triggers give
// keys to rows written without them (the migration).
import { type RawBuilder, sql } from 'kysely';
import type { Dialect } from './store.js';

export type Linked = 'customer' | 'address';
const TABLES = { customer: 'customers', address: 'addresses' } as const;

/** Whether leads and addresses name their customer and address by key (SQLite) or by id (PostgreSQL). */
export const linksByKey = (dialect: Dialect): boolean => dialect === 'sqlite';

/** The column of a lead or address that names its customer or address (`alias.customer_key`, `alias.customer_id`). */
export function linkColumn(dialect: Dialect, linked: Linked, alias?: string): string {
  return `${alias ? `${alias}.` : ''}${linked}_${linksByKey(dialect) ? 'key' : 'id'}`;
}

/** The column of the customer or address itself that those name (`alias.key`, `alias.id`). */
export function linkedColumn(dialect: Dialect, alias: string): string {
  return `${alias}.${linksByKey(dialect) ? 'key' : 'id'}`;
}

/** What a link to the customer or address with this id holds, as a value in a statement. */
function linkOf(dialect: Dialect, linked: Linked, id: string): RawBuilder<unknown> {
  return linksByKey(dialect)
    ? sql`(select key from ${sql.table(TABLES[linked])} where id = ${id})`
    : sql`${id}`;
}

/** Text for a statement of our own: a link's value from its id as the next parameter (`?`). */
export function linkParameter(dialect: Dialect, linked: Linked): string {
  return linksByKey(dialect) ? `(select key from ${TABLES[linked]} where id = ?)` : '?';
}

/**
 * The row (`alias`, a lead or an address) names the customer or address with this id; with `brandId`, one of that
 * brand. SQLite asks the brand of the customer or address named (the key is then the only thing the row is
 * searched by, so the planner can't take a brand-wide index instead); PostgreSQL asks the row's own brand_id.
 */
export function linksTo(
  dialect: Dialect,
  linked: Linked,
  id: string,
  alias?: string,
  brandId?: string,
): RawBuilder<boolean> {
  const column = sql.ref(linkColumn(dialect, linked, alias));
  if (brandId === undefined) return sql<boolean>`${column} = ${linkOf(dialect, linked, id)}`;
  return linksByKey(dialect)
    ? sql<boolean>`${column} = (select key from ${sql.table(TABLES[linked])} where id = ${id} and brand_id = ${brandId})`
    : sql<boolean>`${column} = ${id} and ${sql.ref(`${alias ? `${alias}.` : ''}brand_id`)} = ${brandId}`;
}

/** The row (`alias`) names one of the customers or addresses with these ids. */
export function linksToAny(
  dialect: Dialect,
  linked: Linked,
  ids: readonly string[],
  alias?: string,
): RawBuilder<boolean> {
  if (!ids.length) return sql<boolean>`1 = 0`;
  const column = sql.ref(linkColumn(dialect, linked, alias));
  return linksByKey(dialect)
    ? sql<boolean>`${column} in (select key from ${sql.table(TABLES[linked])} where id in (${sql.join(ids)}))`
    : sql<boolean>`${column} in (${sql.join(ids)})`;
}

/** The row `child` (a lead or an address) names the row `parent` (a customer or an address). */
export function linksToRow(
  dialect: Dialect,
  linked: Linked,
  child: string,
  parent: string,
): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(linkColumn(dialect, linked, child))} = ${sql.ref(linkedColumn(dialect, parent))}`;
}

/** A lead's or an address's update with the keys of the customer and address it names, where it names them. */
export function withLinks<T extends { customer_id?: string; address_id?: string }>(dialect: Dialect, set: T) {
  if (!linksByKey(dialect)) return set;
  return {
    ...set,
    ...(set.customer_id !== undefined ? { customer_key: linkOf(dialect, 'customer', set.customer_id) } : {}),
    ...(set.address_id !== undefined ? { address_key: linkOf(dialect, 'address', set.address_id) } : {}),
  };
}
