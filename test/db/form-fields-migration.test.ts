// The form-fields migration on a database with forms made before forms chose their fields: each keeps every field
// its hosted page and snippet showed, in the same order, the spec's required ones required, and no questions.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { findPublicForm, getForm } from '../../src/forms/forms.js';
import { hostedFormPage } from '../../src/forms/views.js';
import { dialects } from '../helpers.js';
import { databaseBefore } from '../migrated-database.js';

/** The default attachment limits (ATTACHMENT_MAX_BYTES, 10 files a post), for the photos field's hint. */
const FILE_LIMITS = { maxFilesPerPost: 10, maxFileBytes: 10 * 1024 * 1024 };

const BEFORE = '2026112501_languages';

/** What the hosted page and snippet showed before the migration, in their order. */
const SHOWN_BEFORE = [
  'title',
  'description',
  'category',
  'budgetQuote',
  'customerName',
  'firstName',
  'lastName',
  'companyName',
  'email',
  'phone',
  'street',
  'streetNumber',
  'streetNumberAddition',
  'postalCode',
  'city',
  'country',
  'notes',
];
const REQUIRED = new Set(['title', 'customerName', 'street', 'postalCode', 'city']);

describe.each(dialects())('the form-fields migration on %s', (dialect) => {
  const before = databaseBefore(dialect, BEFORE);

  it('keeps every field an existing form showed, in its order', async () => {
    const database = await before.open();
    const db = database.db;
    await sql`insert into brands (id, name, default_country, created_at) values ('brd_1', 'Acme', 'NL', 1)`.execute(
      db,
    );
    const id = 'frm_0000000000000000000000000a';
    await sql`insert into forms (id, brand_id, name, allowed_origins, created_at, updated_at)
      values (${id}, 'brd_1', 'Contact', '["https://www.example.nl"]', 1, 1)`.execute(db);

    const applied = await before.migrate();
    expect(applied).toContain('2026112602_form_fields');
    expect(applied).toContain('2026112604_form_refusals');

    const form = await getForm(database, 'brd_1', id);
    expect(form.fields).toEqual(SHOWN_BEFORE.map((name) => ({ name, required: REQUIRED.has(name) })));
    expect(form.questions).toEqual([]);
    const page = hostedFormPage((await findPublicForm(database, id))!, 'en', FILE_LIMITS);
    const asked = [...page.matchAll(/<(?:input|select|textarea) id="field-[^"]+" name="([^"]+)"/g)]
      .map((m) => m[1])
      .filter((name) => name !== '_gotcha');
    expect(asked).toEqual(SHOWN_BEFORE);
  });
});
