import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';
import { body, postgresDocumentFunctions } from './2026112320_search.js';
import { createDocumentWriters } from './2026120201_search_per_commit.js';

/**
 * A lead's search document holds each of the contact's words once (issue 33).
 *
 * The document (2026112320) ends with the contact as submitted with the lead (name, company, email, phone), so a
 * lead stays findable by what the person typed after it was linked to a customer whose record says otherwise. Most
 * of the time the two are the same (a new customer is made from the submission): the document then held the name,
 * email and phone twice, a quarter of its characters, each one more trigram to tokenize, index, merge and write
 * (bench/README.md, "where a create's CPU goes").
 *
 * Now a submitted value is left out when it equals its customer's value. Search finds the same leads: a query is
 * matched within one part of the document (the parts are joined by a line feed, and a query with a control
 * character is refused, platform/db/search.ts), and a part left out is identical to one kept. When the customer's
 * record changes, its leads' documents are written again and the submitted values that now differ are back in
 * them.
 *
 * Documents already in the index keep their repeated values (they match the same queries); each is written the new
 * way when its lead, customer or address next changes. No rewrite of the whole index here: on a large database that
 * would hold the write lock for minutes.
 *
 * Both databases: SQLite's flush view and update triggers, PostgreSQL's trigger functions.
 */
export function migration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const exec = (text: string) => sql.raw(text).execute(db);
      if (dialect === 'postgres') {
        for (const text of postgresDocumentFunctions(`f_unaccent(${body('postgres', true)})`))
          await exec(text);
        return;
      }
      await exec('drop view lead_search_pending_documents');
      for (const name of ['lead', 'customer', 'address']) await exec(`drop trigger lead_search_${name}`);
      await createDocumentWriters(exec, body('sqlite', true));
    },
  };
}
