// The list JSON's triggers (migrations/2026112401_list_json.ts, list-json.ts), derived from the field table: a
// lead's ready list item is cleared on any update of the lead, and on an update of one of the listed columns of its
// customer or address. That migration wrote the columns down as they were; it stays as it is (a fresh database
// runs it before later columns exist). A later migration that adds or drops a listed field calls
// recreateListJsonTriggers, which takes them from the table of its day.

import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/store.js';
import { leadField, leadFieldsWhere } from './fields.js';

/** The columns of customers and addresses a lead's list item shows: a change to one clears the item. */
export interface ListJsonWatched {
  customers: readonly string[];
  addresses: readonly string[];
}

/** What the field table lists of a lead's customer and address, by column. */
export function listJsonWatched(): ListJsonWatched {
  return {
    customers: leadFieldsWhere({ group: 'customer', listed: true }).map((name) => leadField(name).column),
    addresses: leadFieldsWhere({ group: 'address', listed: true }).map((name) => leadField(name).column),
  };
}

const clear = (where: string) => `update leads set list_json = null, list_rev = list_rev + 1 where ${where}`;
const changed = (columns: readonly string[], distinct: string) =>
  columns.map((c) => `new.${c} ${distinct} old.${c}`).join(' or ');

/**
 * The statements that (re)create the triggers watching these columns, dropping those there are first: the
 * migration's triggers, written the same way (a table none of whose columns are listed gets none).
 */
export function listJsonTriggerStatements(dialect: Dialect, watched: ListJsonWatched): string[] {
  const customers = watched.customers.join(', ');
  const addresses = watched.addresses.join(', ');
  if (dialect === 'sqlite') {
    return [
      'drop trigger if exists leads_list_json_lead',
      'drop trigger if exists leads_list_json_customer',
      'drop trigger if exists leads_list_json_address',
      // SQLite cannot change NEW: the lead's own trigger clears it with a second update, which moves list_rev and so
      // does not fire the trigger again (nor would it: recursive triggers are off).
      `create trigger leads_list_json_lead after update on leads when new.list_rev is old.list_rev
          begin ${clear('id = new.id')}; end`,
      ...(customers
        ? [
            `create trigger leads_list_json_customer after update of ${customers}
          on customers when ${changed(watched.customers, 'is not')} begin ${clear('customer_id = new.id')}; end`,
          ]
        : []),
      ...(addresses
        ? [
            `create trigger leads_list_json_address after update of ${addresses}
          on addresses when ${changed(watched.addresses, 'is not')} begin ${clear('address_id = new.id')}; end`,
          ]
        : []),
    ];
  }
  return [
    'drop trigger if exists leads_list_json_lead on leads',
    'drop trigger if exists leads_list_json_customer on customers',
    'drop trigger if exists leads_list_json_address on addresses',
    `create or replace function leads_list_json_lead() returns trigger language plpgsql as $$
        begin
          if new.list_rev = old.list_rev then
            new.list_json := null;
            new.list_rev := old.list_rev + 1;
          end if;
          return new;
        end $$`,
    `create trigger leads_list_json_lead before update on leads for each row
        execute function leads_list_json_lead()`,
    `create or replace function leads_list_json_customer() returns trigger language plpgsql as $$
        begin ${clear('customer_id = new.id')}; return null; end $$`,
    ...(customers
      ? [
          `create trigger leads_list_json_customer after update of ${customers}
        on customers for each row when (${changed(watched.customers, 'is distinct from')})
        execute function leads_list_json_customer()`,
        ]
      : []),
    `create or replace function leads_list_json_address() returns trigger language plpgsql as $$
        begin ${clear('address_id = new.id')}; return null; end $$`,
    ...(addresses
      ? [
          `create trigger leads_list_json_address after update of ${addresses}
        on addresses for each row when (${changed(watched.addresses, 'is distinct from')})
        execute function leads_list_json_address()`,
        ]
      : []),
  ];
}

/** The columns a table has now. */
async function columnsOf<DB>(db: Kysely<DB>, dialect: Dialect, table: string): Promise<Set<string>> {
  const { rows } =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)
      : await sql<{ name: string }>`select column_name as name from information_schema.columns
          where table_schema = current_schema() and table_name = ${table}`.execute(db);
  return new Set(rows.map((r) => r.name));
}

/**
 * For a migration that changes what a lead's list item holds (adds, drops or lists a field): recreates the
 * triggers from the field table as it is, and forgets every stored item, which the lists render again as they
 * are read (their shape may have changed). Columns the table names that the database does not have yet (a later
 * migration adds them, and calls this again) are left out, so an older migration still runs on a fresh database.
 */
export async function recreateListJsonTriggers<DB>(db: Kysely<DB>, dialect: Dialect): Promise<void> {
  const wanted = listJsonWatched();
  const customers = await columnsOf(db, dialect, 'customers');
  const addresses = await columnsOf(db, dialect, 'addresses');
  const watched = {
    customers: wanted.customers.filter((c) => customers.has(c)),
    addresses: wanted.addresses.filter((c) => addresses.has(c)),
  };
  for (const statement of listJsonTriggerStatements(dialect, watched)) await sql.raw(statement).execute(db);
  // Moving list_rev on keeps a write-back rendered before this from storing an item of the old shape.
  await sql`update leads set list_json = null, list_rev = list_rev + 1 where list_json is not null`.execute(
    db,
  );
}
