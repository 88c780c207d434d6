import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * What a form asks: `fields` (JSON text, [{ name, required }], the lead fields it shows in its order) and
 * `questions` (JSON text, the form's own questions). A form made before keeps every field its hosted page and
 * snippet showed, in the same order, the spec's required ones required: written out here as it was on the day of
 * this migration (never derived from today's field table, which may change later).
 */
const SHOWN_BEFORE: [name: string, required: boolean][] = [
  ['title', true],
  ['description', false],
  ['category', false],
  ['budgetQuote', false],
  ['customerName', true],
  ['firstName', false],
  ['lastName', false],
  ['companyName', false],
  ['email', false],
  ['phone', false],
  ['street', true],
  ['streetNumber', false],
  ['streetNumberAddition', false],
  ['postalCode', true],
  ['city', true],
  ['country', false],
  ['notes', false],
];

export function migration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const column of ['fields', 'questions']) {
        await db.schema
          .alterTable('forms')
          .addColumn(column, 'text', (c) => c.notNull().defaultTo('[]'))
          .execute();
      }
      const before = JSON.stringify(SHOWN_BEFORE.map(([name, required]) => ({ name, required })));
      await sql`update forms set fields = ${before}`.execute(db);
    },
  };
}
