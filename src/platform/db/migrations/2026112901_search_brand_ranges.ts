import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';
import { body, JOINS } from './2026112320_search.js';

/**
 * SQLite: each brand's search documents in a rowid range of their own, so a search reads only its brand's part of
 * the FTS5 index (FTS5 seeks each term's doclist to the range's start and stops at its end), however many leads
 * other brands have (issue 29: one brand's 40-term query stalled every brand's requests for 10 s).
 *
 * - `brands.search_key`: a small integer per brand, unique, given on insert (max + 1).
 * - `lead_search_rows.id` (the FTS rowid of a lead's document) = search_key × 2³² + the lead's number in its brand.
 *   The ids of one brand are [search_key × 2³², (search_key + 1) × 2³²); a new lead takes the brand's highest + 1.
 *   JavaScript numbers hold these exactly up to search_key 2²¹ (two million brands).
 *
 * The index is built again with the new rowids (the previous migration's triggers and document). PostgreSQL's
 * trigram index answers a brand's search in milliseconds whatever other brands hold (issue 29's review): no change.
 */
export function migration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'sqlite') await upSqlite(db);
    },
  };
}

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  const exec = (text: string) => sql.raw(text).execute(db);
  const doc = body('sqlite');
  await exec('alter table brands add column search_key integer');
  await exec('update brands set search_key = (select count(*) from brands b where b.rowid <= brands.rowid)');
  await exec('create unique index brands_search_key on brands (search_key)');
  await exec(`create trigger brands_search_key after insert on brands when new.search_key is null begin
    update brands set search_key = (select coalesce(max(search_key), 0) + 1 from brands) where id = new.id;
  end`);
  for (const name of ['insert', 'lead', 'delete', 'customer', 'address']) {
    await exec(`drop trigger lead_search_${name}`);
  }
  await exec('drop table lead_search');
  await exec('drop table lead_search_rows');
  await exec('create table lead_search_rows (id integer primary key, lead_id text not null unique)');
  await exec(
    `create virtual table lead_search using fts5(body, content='', contentless_delete=1, tokenize='trigram remove_diacritics 1')`,
  );
  // The brand's range start, and the next free id in it.
  const start = '((select search_key from brands where id = new.brand_id) << 32)';
  const next = `coalesce((select id + 1 from lead_search_rows where id >= ${start} and id < ${start} + 4294967296
    order by id desc limit 1), ${start})`;
  const rewrite = (where: string) => `
    delete from lead_search where rowid in (select r.id from leads l join lead_search_rows r on r.lead_id = l.id where ${where});
    insert into lead_search (rowid, body)
      select r.id, ${doc} from leads l join lead_search_rows r on r.lead_id = l.id ${JOINS} where ${where};`;
  await exec(`create trigger lead_search_insert after insert on leads begin
    insert into lead_search_rows (id, lead_id) values (${next}, new.id);
    insert into lead_search (rowid, body)
      select r.id, ${doc} from leads l join lead_search_rows r on r.lead_id = l.id ${JOINS} where l.id = new.id;
  end`);
  await exec(`create trigger lead_search_lead after update of title, description, customer_id, address_id, submitted
    on leads when new.title is not old.title or new.description is not old.description
      or new.customer_id is not old.customer_id or new.address_id is not old.address_id
      or new.submitted is not old.submitted
  begin ${rewrite('l.id = new.id')} end`);
  await exec(`create trigger lead_search_delete after delete on leads begin
    delete from lead_search where rowid = (select id from lead_search_rows where lead_id = old.id);
    delete from lead_search_rows where lead_id = old.id;
  end`);
  await exec(`create trigger lead_search_customer after update of name, company_name, email, phone on customers
    when new.name is not old.name or new.company_name is not old.company_name or new.email is not old.email
      or new.phone is not old.phone
  begin ${rewrite('l.customer_id = new.id')} end`);
  await exec(`create trigger lead_search_address after update of street, street_number, street_number_addition,
    postal_code, city on addresses
    when new.street is not old.street or new.street_number is not old.street_number
      or new.street_number_addition is not old.street_number_addition or new.postal_code is not old.postal_code
      or new.city is not old.city
  begin ${rewrite('l.address_id = new.id')} end`);
  // The leads there are, numbered within their brand.
  await exec(`insert into lead_search_rows (id, lead_id)
    select (b.search_key << 32) + row_number() over (partition by l.brand_id order by l.id) - 1, l.id
    from leads l join brands b on b.id = l.brand_id`);
  await exec(
    `insert into lead_search (rowid, body) select r.id, ${doc} from leads l join lead_search_rows r on r.lead_id = l.id ${JOINS}`,
  );
}
