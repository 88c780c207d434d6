import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Who reads which language: a brand's (Dutch for a Dutch business, else English), each user's (their brand's
 * until they choose) and each website form's (its brand's until set). Existing rows get those defaults.
 */
export function migration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const table of ['brands', 'users', 'forms']) {
        await db.schema
          .alterTable(table)
          .addColumn('language', 'text', (column) => column.notNull().defaultTo('en'))
          .execute();
      }
      await sql`update brands set language = 'nl' where upper(default_country) = 'NL'`.execute(db);
      for (const table of ['users', 'forms']) {
        await sql`update ${sql.table(table)} set language =
          (select b.language from brands b where b.id = ${sql.ref(`${table}.brand_id`)})`.execute(db);
      }
    },
  };
}
