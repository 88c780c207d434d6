// The list JSON's triggers (migrations/2026112401_list_json.ts, list-json.ts), derived from the field table: a
// lead's ready list item is cleared on any update of the lead, and on an update of one of the listed columns of its
// customer or address. That migration wrote the columns down as they were; it stays as it is (a fresh database
// runs it before later columns exist). A later migration that adds or drops a listed field calls
// recreateListJsonTriggers, which takes them from the table of its day.

import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/store.js';
import { leadField, leadFieldsWhere } from './fields.js';
import { createListJsonTriggers, forgetListJson, tableColumns } from './queries.js';

/** The columns of customers and addresses a lead's list item shows: a change to one clears the item. */
export interface ListJsonWatched {
  customers: readonly string[];
  addresses: readonly string[];
  /**
   * SQLite: a customer's or address's leads are found by its internal key (2026120801, where the only index over
   * them is). PostgreSQL links by id (platform/db/internal-keys.ts).
   */
  byKey?: boolean;
}

/** What the field table lists of a lead's customer and address, by column. */
export function listJsonWatched(): ListJsonWatched {
  return {
    customers: leadFieldsWhere({ group: 'customer', listed: true }).map((name) => leadField(name).column),
    addresses: leadFieldsWhere({ group: 'address', listed: true }).map((name) => leadField(name).column),
  };
}

/**
 * For a migration that changes what a lead's list item holds (adds, drops or lists a field): recreates the
 * triggers from the field table as it is, and forgets every stored item, which the lists render again as they
 * are read (their shape may have changed). Columns the table names that the database does not have yet (a later
 * migration adds them, and calls this again) are left out, so an older migration still runs on a fresh database.
 */
export async function recreateListJsonTriggers<DB>(db: Kysely<DB>, dialect: Dialect): Promise<void> {
  const wanted = listJsonWatched();
  const customers = await tableColumns(db, dialect, 'customers');
  const addresses = await tableColumns(db, dialect, 'addresses');
  const watched = {
    customers: wanted.customers.filter((c) => customers.has(c)),
    addresses: wanted.addresses.filter((c) => addresses.has(c)),
    byKey: dialect === 'sqlite' && customers.has('key'),
  };
  await createListJsonTriggers(db, dialect, watched);
  // Moving list_rev on keeps a write-back rendered before this from storing an item of the old shape.
  await forgetListJson(db);
}
