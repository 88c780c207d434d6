// The internal-keys migration (2026120801) on a database with customers, addresses and leads written before it:
// every row keeps its values and gets the keys of the ids it names; a customer's and an address's leads are found
// by key, by the service's reads and by the triggers that keep list items and search documents; the keys follow the
// ids whoever writes them (SQL of one's own included); and the foreign keys, now on the keys (SQLite), still refuse
// to delete a customer or an address that rows name.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import { listCustomerAddresses } from '../../src/customers/addresses.js';
import { getCustomer } from '../../src/customers/customers.js';
import { listLeads } from '../../src/leads/index.js';
import type { Database } from '../../src/platform/db/database.js';
import { databaseBefore } from '../migrated-database.js';

const BEFORE = '2026120701_search_document_once';

/** Every row of the table as it stands, without the columns the migration adds, in id order. */
async function rowsOf(database: Database, table: 'customers' | 'addresses' | 'leads') {
  const { rows } = await sql
    .raw<Record<string, unknown>>(`select * from ${table} order by id`)
    .execute(database.db);
  return rows.map((row) => {
    const { key: _key, customer_key: _customer, address_key: _address, ...rest } = row;
    return rest;
  });
}

/** Rows whose keys are not those of the ids they name (none, when the keys are right). */
async function wrongKeys(database: Database): Promise<unknown[]> {
  const { rows } = await sql`
    select 'address ' || a.id as wrong from addresses a
      where a.customer_key is null or a.customer_key <> (select c.key from customers c where c.id = a.customer_id)
    union all
    select 'lead ' || l.id from leads l
      where l.customer_key is null or l.address_key is null
        or l.customer_key <> (select c.key from customers c where c.id = l.customer_id)
        or l.address_key <> (select a.key from addresses a where a.id = l.address_id)`.execute(database.db);
  return rows;
}

// PostgreSQL keeps its links by id (the migration does nothing there): see platform/db/internal-keys.ts.
describe('the internal-keys migration on sqlite', () => {
  const before = databaseBefore('sqlite', BEFORE);

  it('keys every row by the ids it names and finds a customer’s and an address’s rows by key', async () => {
    const database = await before.open();
    const db = database.db;
    const brand = await createBrand(database, { language: 'en', name: 'Acme', country: 'NL' });
    const b = brand.id;
    // The second customer is inserted first: keys follow insert order, not ids.
    await sql`insert into customers (id, brand_id, type, name, email, email_normalized, created_at, updated_at) values
      ('cus_b', ${b}, 'person', 'Bram Bakker', 'bram@example.com', 'bram@example.com', 1, 1),
      ('cus_a', ${b}, 'person', 'Anna Appel', 'anna@example.com', 'anna@example.com', 2, 2)`.execute(db);
    await sql`insert into addresses (id, brand_id, customer_id, street, street_number, postal_code, city, country,
        match_key, created_at, updated_at) values
      ('adr_2', ${b}, 'cus_b', 'Dorpsstraat', '2', '1234 AB', 'Utrecht', 'NL', '1234AB|2||NL', 1, 1),
      ('adr_1', ${b}, 'cus_a', 'Kade', '1', '1015 CJ', 'Amsterdam', 'NL', '1015CJ|1||NL', 2, 2),
      ('adr_3', ${b}, 'cus_a', 'Laan', '3', '3511 AA', 'Utrecht', 'NL', '3511AA|3||NL', 3, 3)`.execute(db);
    const lead = (id: string, customer: string, address: string, at: number) =>
      sql`insert into leads (id, brand_id, customer_id, address_id, title, priority, status, stage, source,
          received_at, created_at, updated_at)
        values (${id}, ${b}, ${customer}, ${address}, ${`Lekkage ${id}`}, 'medium', 'request', 'lead', 'website',
          ${at}, ${at}, ${at})`.execute(db);
    await lead('wrk_1', 'cus_a', 'adr_1', 10);
    await lead('wrk_2', 'cus_a', 'adr_3', 20);
    await lead('wrk_3', 'cus_b', 'adr_2', 30);
    const saved = {
      customers: await rowsOf(database, 'customers'),
      addresses: await rowsOf(database, 'addresses'),
      leads: await rowsOf(database, 'leads'),
    };

    expect(await before.migrate()).toContain('2026120801_internal_keys');

    // Nothing else changed, and every key is its id's.
    expect(await rowsOf(database, 'customers')).toEqual(saved.customers);
    expect(await rowsOf(database, 'addresses')).toEqual(saved.addresses);
    expect(await rowsOf(database, 'leads')).toEqual(saved.leads);
    expect(await wrongKeys(database)).toEqual([]);
    const keys = (
      await sql<{ id: string; key: number }>`select id, key from customers order by key`.execute(db)
    ).rows.map((r) => r.id);
    expect(keys).toEqual(['cus_b', 'cus_a']);

    // The service's reads find a customer's leads and addresses through the keys.
    expect((await getCustomer(database, b, 'cus_a')).leadCount).toBe(2);
    expect((await listCustomerAddresses(database, b, 'cus_a')).map((a) => a.id).sort()).toEqual([
      'adr_1',
      'adr_3',
    ]);
    const leadsOf = async (customerId: string) =>
      (await listLeads(database, b, 'lead', { limit: 50, order: 'asc', customerId })).data.map((l) => l.id);
    expect(await leadsOf('cus_a')).toEqual(['wrk_1', 'wrk_2']);
    expect(await leadsOf('cus_b')).toEqual(['wrk_3']);

    // The triggers that keep a customer's and an address's leads (search documents, list items) find them too.
    await sql`update customers set name = 'Anna Zwaluw' where id = 'cus_a'`.execute(db);
    await sql`update addresses set street = 'Merelhof' where id = 'adr_2'`.execute(db);
    const searched = async (q: string) =>
      (await listLeads(database, b, 'lead', { limit: 50, order: 'asc', search: q })).data.map((l) => l.id);
    expect(await searched('zwaluw')).toEqual(['wrk_1', 'wrk_2']);
    expect(await searched('merelhof')).toEqual(['wrk_3']);

    // Keys follow the ids, whoever writes: a lead moved by its id alone, and rows inserted without keys.
    await sql`update leads set customer_id = 'cus_b', address_id = 'adr_2' where id = 'wrk_2'`.execute(db);
    await sql`insert into addresses (id, brand_id, customer_id, street, postal_code, city, country, match_key,
        created_at, updated_at) values ('adr_4', ${b}, 'cus_b', 'Plein', '9999 ZZ', 'Zwolle', 'NL', 'k4', 4, 4)`.execute(
      db,
    );
    await lead('wrk_4', 'cus_b', 'adr_4', 40);
    expect(await wrongKeys(database)).toEqual([]);
    // The triggers that keep a customer's latest lead (2026112902) saw the lead under its new key.
    const lastLeadAt = async (id: string) =>
      (await sql<{ t: number }>`select last_lead_at as t from customers where id = ${id}`.execute(db))
        .rows[0]!.t;
    expect([await lastLeadAt('cus_a'), await lastLeadAt('cus_b')]).toEqual([10, 30]);
    expect(await leadsOf('cus_a')).toEqual(['wrk_1']);
    expect(await leadsOf('cus_b')).toEqual(['wrk_2', 'wrk_3', 'wrk_4']);
    expect((await getCustomer(database, b, 'cus_b')).leadCount).toBe(3);

    // A customer or an address that rows name can't be deleted.
    await expect(sql`delete from customers where id = 'cus_a'`.execute(db)).rejects.toThrow(/foreign key/i);
    await expect(sql`delete from addresses where id = 'adr_4'`.execute(db)).rejects.toThrow(/foreign key/i);
    expect((await sql`pragma foreign_key_check`.execute(db)).rows).toEqual([]);
    expect((await sql`pragma integrity_check`.execute(db)).rows).toEqual([{ integrity_check: 'ok' }]);
  });

  it('moves the three indexes onto the keys and keeps every other index and trigger', async () => {
    const database = await before.open();
    const schema = async () =>
      (
        await sql<{ type: string; name: string }>`select type, name from sqlite_master
            where tbl_name in ('customers', 'addresses', 'leads') and type in ('index', 'trigger')
              and name not like 'sqlite_autoindex_%' order by type, name`.execute(database.db)
      ).rows;
    const was = await schema();
    await before.migrate();
    const now = await schema();
    const added = ['leads_keys', 'leads_keys_moved', 'addresses_keys', 'addresses_keys_moved'];
    expect(now.filter((e) => !added.includes(e.name))).toEqual(was);
    const columns = async (index: string) =>
      (
        await sql<{ name: string }>`select name from pragma_index_info(${index})`.execute(database.db)
      ).rows.map((r) => r.name);
    expect(await columns('leads_customer_received')).toEqual(['customer_key', 'received_at', 'id']);
    expect(await columns('leads_address')).toEqual(['address_key']);
    expect(await columns('addresses_customer_match')).toEqual(['customer_key', 'match_key']);
    // No trigger finds a customer's or an address's rows by id any more.
    const { rows } = await sql<{ name: string; sql: string }>`select name, sql from sqlite_master
        where type = 'trigger'`.execute(database.db);
    for (const { name, sql: text } of rows) {
      expect(text, name).not.toMatch(/\b(customer_id|address_id) = (new|customers|addresses)\.id\b/);
    }
  });
});
