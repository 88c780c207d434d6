import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';
import { body, JOINS } from './2026112320_search.js';

/**
 * SQLite: a new lead's search document is written once per commit, not in its create's savepoint (issue 33).
 *
 * FTS5 writes the terms it holds in memory to a new index segment whenever a savepoint it took part in is released,
 * and a group commit (write-batch.ts) runs every write in a savepoint of its own: each create paid a segment write
 * (`RELEASE write` 123 µs and the trigger's insert most of `insert into leads` 221 µs, bench/statement-costs.ts).
 * Now the insert trigger only gives the lead its rowid in its brand's range (lead_search_rows, as migration
 * 2026112901 numbers them) and marks that rowid in `lead_search_pending`; indexPendingLeads (search-index.ts) writes
 * the documents of all marked leads in one statement right before the group's COMMIT, outside any savepoint, so
 * FTS5 flushes once per commit. A lead is still searchable from the commit that made it on.
 *
 * Pending marks are a table of rowids of their own, not a column of lead_search_rows: it is empty between commits,
 * so "anything to index?" is one read of an empty B-tree, and the flush reads exactly the marked rows without an
 * index over a flag. It holds no personal data (a number per lead, gone at the commit or with the lead).
 *
 * The documents to write are a view, `lead_search_pending_documents` (rowid, body), so the document's definition stays
 * in the schema beside the triggers that write the same document on updates: a migration that changes one changes
 * both, and the code that flushes (search-index.ts) only reads the view.
 *
 * The update triggers skip a pending lead (the flush reads its state as the commit leaves it, so rewriting it
 * would index it twice); the delete trigger drops its mark with its row, so a lead deleted before the flush is never
 * indexed and a new lead may take its rowid (the brand's highest + 1) in the same group.
 *
 * PostgreSQL: its statement-level insert trigger costs no savepoint flush; no change.
 *
 * Expand only (docs/operations.md, "Migrations during a rolling deploy"): a table, a view and triggers; nothing the
 * previous release reads or writes is taken. But a previous release running on this schema (a rollback) does not
 * flush: the leads it creates stay unsearchable until this release's next commit or start indexes them.
 */
export function migration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'sqlite') await upSqlite(db);
    },
  };
}

/** Over lead_search_rows r: the lead's document is in the index (it is not waiting for its commit's flush). */
const INDEXED = 'not exists (select 1 from lead_search_pending p where p.id = r.id)';

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  const exec = (text: string) => sql.raw(text).execute(db);
  const doc = body('sqlite');
  await exec('create table lead_search_pending (id integer primary key)');
  for (const name of ['insert', 'lead', 'delete', 'customer', 'address']) {
    await exec(`drop trigger lead_search_${name}`);
  }
  await createDocumentWriters(exec, doc);
  // The brand's range start, and the next free id in it (as in 2026112901).
  const start = '((select search_key from brands where id = new.brand_id) << 32)';
  const next = `coalesce((select id + 1 from lead_search_rows where id >= ${start} and id < ${start} + 4294967296
    order by id desc limit 1), ${start})`;
  await exec(`create trigger lead_search_insert after insert on leads begin
    insert into lead_search_rows (id, lead_id) values (${next}, new.id);
    insert into lead_search_pending (id) values (last_insert_rowid());
  end`);
  // A pending lead has no document yet: only its mark goes, and FTS5 is not touched in the write's savepoint (a
  // delete, even of an absent rowid, would make the index take part in it).
  await exec(`create trigger lead_search_delete after delete on leads begin
    delete from lead_search where rowid = (select r.id from lead_search_rows r where r.lead_id = old.id and ${INDEXED});
    delete from lead_search_pending where id = (select id from lead_search_rows where lead_id = old.id);
    delete from lead_search_rows where lead_id = old.id;
  end`);
}

/**
 * What writes a lead's search document on SQLite, given the document's definition (`doc`, over l, c and a): the view
 * the commit's flush reads (search-index.ts) and the triggers that write a document again when its lead, customer
 * or address changes. Migrations that change the document (2026120701) make these again with theirs.
 */
export async function createDocumentWriters(
  exec: (text: string) => Promise<unknown>,
  doc: string,
): Promise<void> {
  // Driven by the marks (a handful of rows), each lead by its primary key; `id` is the mark's, so ordering by it
  // is the marks' own order (no sort).
  await exec(`create view lead_search_pending_documents (id, body) as
    select p.id, ${doc} from lead_search_pending p cross join lead_search_rows r on r.id = p.id
      cross join leads l on l.id = r.lead_id ${JOINS}`);
  // Rows of the indexed (not pending) leads selected by `where` (over l, r), written again.
  const rewrite = (where: string) => `
    delete from lead_search where rowid in (select r.id from leads l join lead_search_rows r on r.lead_id = l.id
      where ${where} and ${INDEXED});
    insert into lead_search (rowid, body)
      select r.id, ${doc} from leads l join lead_search_rows r on r.lead_id = l.id ${JOINS} where ${where} and ${INDEXED};`;
  await exec(`create trigger lead_search_lead after update of title, description, customer_id, address_id, submitted
    on leads when new.title is not old.title or new.description is not old.description
      or new.customer_id is not old.customer_id or new.address_id is not old.address_id
      or new.submitted is not old.submitted
  begin ${rewrite('l.id = new.id')} end`);
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
}
