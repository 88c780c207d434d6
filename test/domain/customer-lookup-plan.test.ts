// The customer lookup of every create (issue 33): each rule one index seek whatever the number of customers sharing
// a phone. 3,000 customers share one phone here (half with an email): the plans use the phone indexes led by
// last_lead_at, with no sort and no per-candidate count of leads; the triggers keep last_lead_at right when a
// lead comes in, moves to another customer or is deleted.
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import { findCustomerFor } from '../../src/customers/customers.js';
import { FIND } from '../../src/customers/queries.js';
import { createLead } from '../../src/leads/create.js';
import { parseLeadInput } from '../../src/leads/input.js';
import { NOT_FIRST } from '../../src/platform/db/migrations/2026120202_customer_last_lead_top.js';
import { dialects, validLead } from '../helpers.js';
import { migratedDatabase } from '../migrated-database.js';

const SHARED = '+31201234567';
const CROWD = 3000;

describe.each(dialects())('the customer lookup on %s', (dialect) => {
  const database = migratedDatabase(dialect);
  let brandId = '';
  beforeAll(async () => {
    brandId = (await createBrand(database, { language: 'en', name: 'Switchboard BV', country: 'NL' })).id;
    const pg = dialect === 'postgres';
    const series = pg
      ? `generate_series(1, ${CROWD}) as s(n)`
      : `(with recursive s(n) as (select 1 union all select n + 1 from s where n < ${CROWD}) select n from s) s`;
    const email = (n: string) => `case when ${n} % 2 = 0 then 'crowd' || ${n} || '@example.com' end`;
    await sql
      .raw(`insert into customers (id, brand_id, type, name, email, email_normalized, phone, created_at, updated_at)
        select 'cus_crowd' || n, '${brandId}', 'person', 'Crowd ' || n, ${email('n')}, ${email('n')}, '${SHARED}',
          n, n from ${series}`)
      .execute(database.db);
    await sql
      .raw(`insert into addresses (id, brand_id, customer_id, street, street_number, postal_code, city, country,
          match_key, created_at, updated_at)
        select 'adr_crowd' || n, '${brandId}', 'cus_crowd' || n, 'Damrak', '' || n, '1012 LG', 'Amsterdam', 'NL',
          '1012LG|' || n || '||NL', n, n from ${series}`)
      .execute(database.db);
    if (pg) await sql`analyze customers`.execute(database.db);
  });

  async function plan(withEmail: boolean): Promise<string> {
    const s = FIND[`${withEmail}`];
    const params = [brandId, SHARED, brandId, withEmail ? 'nobody@example.com' : null];
    return explain(s, params);
  }

  async function explain(s: { sqlite: string; postgres: string }, params: unknown[]): Promise<string> {
    const literal = (v: unknown) => (v === null ? 'null' : `'${String(v)}'`);
    if (dialect === 'postgres') {
      const text = s.postgres.replace(/\$(\d+)/g, (_, i) => literal(params[Number(i) - 1]));
      const rows = (await sql.raw(`explain ${text}`).execute(database.db)).rows as { 'QUERY PLAN': string }[];
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    }
    let i = 0;
    const text = s.sqlite.replace(/\?/g, () => literal(params[i++]));
    const rows = (await sql.raw(`explain query plan ${text}`).execute(database.db)).rows as {
      detail: string;
    }[];
    return rows.map((r) => r.detail).join('\n');
  }

  it('answers the phone rule from the phone indexes, latest lead first, without sorting the crowd', async () => {
    const withEmail = await plan(true);
    const withoutEmail = await plan(false);
    if (dialect === 'postgres') {
      expect(withEmail).toMatch(/Index Scan using customers_brand_phone_no_email/);
      expect(withoutEmail).toMatch(/Index Scan using customers_brand_phone on/);
    } else {
      expect(withEmail).toMatch(
        /SEARCH c USING INDEX customers_brand_phone_no_email \(brand_id=\? AND phone=\?\)/,
      );
      expect(withoutEmail).toMatch(/SEARCH c USING INDEX customers_brand_phone \(brand_id=\? AND phone=\?\)/);
    }
    for (const text of [withEmail, withoutEmail]) {
      expect(text).not.toMatch(/TEMP B-TREE|Sort|leads/i);
    }
  });

  it("asks whether a lead's customer is ranked first for its phone from the first entries of the phone index", async () => {
    // What the insert trigger asks before moving a customer's last_lead_at (2026120202): the latest of the others.
    const text = `select 1 from customers c where c.id = ? and ${NOT_FIRST}`;
    const found = await explain({ sqlite: text, postgres: text.replace('?', '$1') }, ['cus_crowd7']);
    if (dialect === 'postgres') {
      expect(found).toMatch(/Limit[\s\S]*Index Scan using customers_brand_phone on customers o/);
    } else {
      expect(found).toMatch(/SEARCH o USING INDEX customers_brand_phone \(brand_id=\? AND phone=\?\)/);
    }
    expect(found).not.toMatch(/TEMP B-TREE|Sort|Seq Scan|SCAN o/i);
  });

  it('links to the customer whose latest lead is newest, as leads come, move and go', async () => {
    const find = (email: string | null) => findCustomerFor(database, brandId, { email, phone: SHARED });
    // No leads yet: the newest customer (created_at), among those without an email when an email is given.
    expect(await find(null)).toEqual({ id: `cus_crowd${CROWD}`, rule: 'phone' });
    expect(await find('new@example.com')).toEqual({ id: `cus_crowd${CROWD - 1}`, rule: 'phone' });
    const lead = (id: string, customer: string, at: number) =>
      sql
        .raw(`insert into leads (id, brand_id, customer_id, address_id, title, priority, status, stage, source,
          received_at, created_at, updated_at) values ('${id}', '${brandId}', '${customer}',
          'adr_crowd${customer.slice(9)}', 'Lead', 'medium', 'request', 'lead', 'website', ${at}, ${at}, ${at})`)
        .execute(database.db);
    await lead('led_crowd_a', 'cus_crowd7', 1_000_000);
    expect(await find('new@example.com')).toEqual({ id: 'cus_crowd7', rule: 'phone' });
    await lead('led_crowd_b', 'cus_crowd10', 2_000_000);
    expect(await find(null)).toEqual({ id: 'cus_crowd10', rule: 'phone' });
    // The newer lead moves to customer 9 (no email): 9 is the latest, 10 has none left.
    await sql
      .raw(`update leads set customer_id = 'cus_crowd9' where id = 'led_crowd_b'`)
      .execute(database.db);
    expect(await find('new@example.com')).toEqual({ id: 'cus_crowd9', rule: 'phone' });
    const at = async (id: string) =>
      Number(
        (
          await sql<{ t: number }>`select last_lead_at as t from customers where id = ${id}`.execute(
            database.db,
          )
        ).rows[0]!.t,
      );
    expect(await at('cus_crowd10')).toBe(0);
    await sql.raw(`delete from leads where id = 'led_crowd_b'`).execute(database.db);
    expect(await at('cus_crowd9')).toBe(0);
    expect(await find('new@example.com')).toEqual({ id: 'cus_crowd7', rule: 'phone' });
    // The email rule decides when it finds someone, whatever the phone.
    expect(await find('crowd8@example.com')).toEqual({ id: 'cus_crowd8', rule: 'email' });
  });
  it('leaves the customer ranked first for its phone alone, and ranks the next lead elsewhere right', async () => {
    const find = (phone: string) => findCustomerFor(database, brandId, { email: null, phone });
    const at = async (id: string) =>
      Number(
        (
          await sql<{ t: number }>`select last_lead_at as t from customers where id = ${id}`.execute(
            database.db,
          )
        ).rows[0]!.t,
      );
    const lead = (id: string, customer: string, at: number, address = `adr_crowd${customer.slice(9)}`) =>
      sql
        .raw(`insert into leads (id, brand_id, customer_id, address_id, title, priority, status, stage, source,
          received_at, created_at, updated_at) values ('${id}', '${brandId}', '${customer}',
          '${address}', 'Lead', 'medium', 'request', 'lead', 'website', ${at}, ${at}, ${at})`)
        .execute(database.db);
    // Customer 7's lead (the test before) put it first, strictly: its next lead leaves its row alone.
    expect(await find(SHARED)).toEqual({ id: 'cus_crowd7', rule: 'phone' });
    await lead('led_top_a', 'cus_crowd7', 3_000_000);
    expect(await at('cus_crowd7')).toBe(1_000_000);
    // A later lead for another sharing the phone is exact, and ahead of the first's.
    await lead('led_top_b', 'cus_crowd9', 4_000_000);
    expect(await at('cus_crowd9')).toBe(4_000_000);
    expect(await find(SHARED)).toEqual({ id: 'cus_crowd9', rule: 'phone' });
    // Behind now, customer 7 is moved on by its next lead, and first again.
    await lead('led_top_c', 'cus_crowd7', 5_000_000);
    expect(await at('cus_crowd7')).toBe(5_000_000);
    expect(await find(SHARED)).toEqual({ id: 'cus_crowd7', rule: 'phone' });
    await lead('led_top_d', 'cus_crowd7', 6_000_000);
    expect(await at('cus_crowd7')).toBe(5_000_000);
    // Customer 7 takes a phone another customer has, whose latest lead (5,500,000) is older than 7's (6,000,000)
    // but newer than the time 7's row kept: its time is made exact, so 7 is ranked first there.
    const other = '+31209999999';
    await sql
      .raw(`insert into customers (id, brand_id, type, name, phone, created_at, updated_at, last_lead_at)
        values ('cus_other', '${brandId}', 'person', 'Other', '${other}', 1, 1, 5500000)`)
      .execute(database.db);
    await sql
      .raw(`insert into addresses (id, brand_id, customer_id, street, street_number, postal_code, city, country,
          match_key, created_at, updated_at) values ('adr_other', '${brandId}', 'cus_other', 'Damrak', '1',
          '1012 LG', 'Amsterdam', 'NL', '1012LG|other||NL', 1, 1)`)
      .execute(database.db);
    await lead('led_other', 'cus_other', 5_500_000, 'adr_other');
    expect(await find(other)).toEqual({ id: 'cus_other', rule: 'phone' });
    await sql.raw(`update customers set phone = '${other}' where id = 'cus_crowd7'`).execute(database.db);
    expect(await at('cus_crowd7')).toBe(6_000_000);
    expect(await find(other)).toEqual({ id: 'cus_crowd7', rule: 'phone' });
    // And back: exact, 7's latest lead is still the newest of the crowd's.
    await sql.raw(`update customers set phone = '${SHARED}' where id = 'cus_crowd7'`).execute(database.db);
    expect(await find(SHARED)).toEqual({ id: 'cus_crowd7', rule: 'phone' });
  });

  it("starts a create's new customer at its lead's time, and writes the customer no second time", async () => {
    // Every update of a customer's last_lead_at is logged: the create's own customer needs none (on PostgreSQL
    // each was a second version of the row and new entries in all its indexes).
    const pg = dialect === 'postgres';
    await sql
      .raw('create table last_lead_updates (id text not null, t bigint not null)')
      .execute(database.db);
    if (pg) {
      await sql
        .raw(`create function log_last_lead() returns trigger language plpgsql as $$ begin
            insert into last_lead_updates values (new.id, new.last_lead_at); return null; end $$;
          create trigger log_last_lead after update of last_lead_at on customers
            for each row execute function log_last_lead()`)
        .execute(database.db);
    } else {
      await sql
        .raw(`create trigger log_last_lead after update of last_lead_at on customers begin
            insert into last_lead_updates values (new.id, new.last_lead_at); end`)
        .execute(database.db);
    }
    try {
      const origin = { brandId, source: 'api', keyId: null, keyName: null };
      const first = await createLead(
        database,
        origin,
        parseLeadInput(validLead({ email: 'fresh@example.com' })),
      );
      const customer = await sql<{ t: number | string; c: number | string }>`
        select last_lead_at as t, created_at as c from customers where id = ${first.customerId}`.execute(
        database.db,
      );
      expect(Number(customer.rows[0]!.t)).toBe(Date.parse(first.receivedAt));
      const updates = async () =>
        (await sql<{ id: string }>`select id from last_lead_updates`.execute(database.db)).rows.map(
          (r) => r.id,
        );
      expect(await updates()).toEqual([]);
      // A later lead for that customer moves it on, as before.
      await new Promise((r) => setTimeout(r, 5));
      const second = await createLead(
        database,
        origin,
        parseLeadInput(validLead({ email: 'fresh@example.com' })),
      );
      expect(second.customerId).toBe(first.customerId);
      // A later lead for a customer nobody shares a phone with (this one has none) writes it no more either: no
      // ranking needs its time (2026120202).
      expect(await updates()).toEqual([]);
      // One for a customer behind another sharing its phone moves it on, once.
      await new Promise((r) => setTimeout(r, 5));
      const third = await createLead(
        database,
        origin,
        parseLeadInput(validLead({ email: 'crowd20@example.com', phone: SHARED })),
      );
      expect(third.customerId).toBe('cus_crowd20');
      expect(await updates()).toEqual(['cus_crowd20']);
      const moved = await sql<{ t: number | string }>`
        select last_lead_at as t from customers where id = 'cus_crowd20'`.execute(database.db);
      expect(Number(moved.rows[0]!.t)).toBe(Date.parse(third.receivedAt));
    } finally {
      await sql.raw('drop trigger log_last_lead' + (pg ? ' on customers' : '')).execute(database.db);
      if (pg) await sql.raw('drop function log_last_lead()').execute(database.db);
      await sql.raw('drop table last_lead_updates').execute(database.db);
    }
  });
});
