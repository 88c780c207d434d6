import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Search (the lists' `q`) by each database's own text index, kept in step by triggers, so every write path
 * (create, lead edit, customer edit, address edit, merge, spam removal) updates it without code of its own.
 *
 * One document per lead: its title and description; its customer's name, company, email and phone; its address's
 * street (with number), postal code (as written and without spaces, upper case) and city; and the contact as
 * submitted with the lead (name, company, email, phone), which may differ from the customer it was linked to.
 * Phones are held as their E.164 digits (31612345678): the national significant number (612345678) is part of
 * them, and the query side turns a national number (06 1234 5678) into the same digits (see leads/search.ts).
 *
 * SQLite: an FTS5 table with the trigram tokenizer (substring search, case-folded, diacritics removed), contentless
 * with deletes, whose rowids map to leads through lead_search_rows (leads have no stable integer key: VACUUM may
 * renumber their rowids).
 *
 * PostgreSQL: lead_search(lead_id, brand_id, body) with body folded by lower() and unaccent, and a GIN
 * gin_trgm_ops index on it, so `body like '%…%'` is a trigram index scan. It needs the pg_trgm and unaccent
 * extensions: created here if missing (a superuser, or on managed databases an allow-listed extension, e.g.
 * `create extension pg_trgm; create extension unaccent;` by the administrator before the first start). Where they
 * already exist, in whatever schema, that schema is used.
 */
export function migration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'sqlite') await upSqlite(db);
      else await upPostgres(db);
    },
  };
}

/**
 * The document of the leads `l` (joined to customers c, addresses a), unfolded. `once` (migration 2026120701): a
 * submitted value equal to its customer's is left out.
 */
export function body(dialect: Dialect, once = false): string {
  const pg = dialect === 'postgres';
  const sep = pg ? 'chr(10)' : 'char(10)';
  const submitted = (field: string, kept: string) => {
    const value = pg ? `(l.submitted::jsonb ->> '${field}')` : `json_extract(l.submitted, '$.${field}')`;
    const part = field === 'phone' ? `replace(${value}, '+', '')` : value;
    return once ? `nullif(${part}, ${kept})` : part;
  };
  return `concat_ws(${sep}, l.title, l.description, c.name, c.company_name, c.email, replace(c.phone, '+', ''),
    concat_ws(' ', a.street, a.street_number, a.street_number_addition), a.postal_code,
    upper(replace(a.postal_code, ' ', '')), a.city, ${submitted('customerName', 'c.name')},
    ${submitted('companyName', 'c.company_name')}, ${submitted('email', 'c.email')},
    ${submitted('phone', "replace(c.phone, '+', '')")})`;
}

export const JOINS = 'join customers c on c.id = l.customer_id join addresses a on a.id = l.address_id';

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  const doc = body('sqlite');
  const exec = (text: string) => sql.raw(text).execute(db);
  await exec('create table lead_search_rows (id integer primary key, lead_id text not null unique)');
  await exec(
    `create virtual table lead_search using fts5(body, content='', contentless_delete=1, tokenize='trigram remove_diacritics 1')`,
  );
  // Rows of the leads selected by `where` (over l, r), written again.
  const rewrite = (where: string) => `
    delete from lead_search where rowid in (select r.id from leads l join lead_search_rows r on r.lead_id = l.id where ${where});
    insert into lead_search (rowid, body)
      select r.id, ${doc} from leads l join lead_search_rows r on r.lead_id = l.id ${JOINS} where ${where};`;
  await exec(`create trigger lead_search_insert after insert on leads begin
    insert into lead_search_rows (lead_id) values (new.id);
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
  // The leads there are.
  await exec('insert into lead_search_rows (lead_id) select id from leads order by id');
  await exec(
    `insert into lead_search (rowid, body) select r.id, ${doc} from leads l join lead_search_rows r on r.lead_id = l.id ${JOINS}`,
  );
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  const exec = (text: string) => sql.raw(text).execute(db);
  // In public, not in the first schema of the search_path: an extension created inside the service's own schema
  // would go when that schema is dropped, taking other schemas' search functions with it.
  await exec('create extension if not exists pg_trgm with schema public');
  await exec('create extension if not exists unaccent with schema public');
  const { rows } = await sql<{ extname: string; nspname: string }>`select e.extname, n.nspname
    from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname in ('pg_trgm', 'unaccent')`.execute(db);
  const schemaOf = (name: string) => {
    const row = rows.find((r) => r.extname === name);
    if (!row) throw new Error(`The PostgreSQL extension ${name} is missing`);
    return `"${row.nspname.replace(/"/g, '""')}"`;
  };
  const trgm = schemaOf('pg_trgm');
  const unaccent = schemaOf('unaccent');
  // unaccent() is only stable (its dictionary could change); an index needs an immutable function, so a wrapper
  // names the dictionary and promises that. Lower case first, then accents off: "Émile" -> "emile".
  await exec(`create function f_unaccent(text) returns text language sql immutable strict parallel safe
    as $$ select ${unaccent}.unaccent('${unaccent}.unaccent'::regdictionary, lower($1)) $$`);
  await exec(`create table lead_search (
    lead_id text collate "C" primary key references leads(id) on delete cascade,
    body text not null)`);
  await exec(`create index lead_search_body on lead_search using gin (body ${trgm}.gin_trgm_ops)`);
  const doc = `f_unaccent(${body('postgres')})`;
  for (const text of postgresDocumentFunctions(doc)) await exec(text);
  await exec(`create trigger lead_search_insert after insert on leads referencing new table as new_leads
    for each statement execute function lead_search_insert()`);
  await exec(`create trigger lead_search_lead after update of title, description, customer_id, address_id, submitted
    on leads for each row when (new.title is distinct from old.title or new.description is distinct from old.description
      or new.customer_id is distinct from old.customer_id or new.address_id is distinct from old.address_id
      or new.submitted is distinct from old.submitted)
    execute function lead_search_lead()`);
  await exec(`create trigger lead_search_customer after update of name, company_name, email, phone on customers
    for each row when (new.name is distinct from old.name or new.company_name is distinct from old.company_name
      or new.email is distinct from old.email or new.phone is distinct from old.phone)
    execute function lead_search_customer()`);
  await exec(`create trigger lead_search_address after update of street, street_number, street_number_addition,
    postal_code, city on addresses for each row when (new.street is distinct from old.street
      or new.street_number is distinct from old.street_number
      or new.street_number_addition is distinct from old.street_number_addition
      or new.postal_code is distinct from old.postal_code or new.city is distinct from old.city)
    execute function lead_search_address()`);
  await exec(`insert into lead_search (lead_id, body) select l.id, ${doc} from leads l ${JOINS}`);
}

/**
 * PostgreSQL: the functions that write lead_search's documents, given the document's definition (`doc`, over l, c
 * and a, folded). Migrations that change the document (2026120701) replace them with theirs.
 */
export function postgresDocumentFunctions(doc: string): string[] {
  const upsert = (where: string) => `insert into lead_search (lead_id, body)
      select l.id, ${doc} from leads l ${JOINS} where ${where}
      on conflict (lead_id) do update set body = excluded.body`;
  return [
    `create or replace function lead_search_lead() returns trigger language plpgsql as $$
    begin ${upsert('l.id = new.id')}; return null; end $$`,
    `create or replace function lead_search_customer() returns trigger language plpgsql as $$
    begin ${upsert('l.customer_id = new.id')}; return null; end $$`,
    `create or replace function lead_search_address() returns trigger language plpgsql as $$
    begin ${upsert('l.address_id = new.id')}; return null; end $$`,
    // New leads per statement, from its transition table: one set-based insert for a bulk import too.
    `create or replace function lead_search_insert() returns trigger language plpgsql as $$
    begin insert into lead_search (lead_id, body) select l.id, ${doc} from new_leads l ${JOINS}; return null; end $$`,
  ];
}
