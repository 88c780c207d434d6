// The forms capability's SQL, all of it: a brand's website forms. Kysely queries. Reads take a Store (the database
// or a write's tx); writes take the write's Tx.
import type { Insertable, Selectable, Updateable } from 'kysely';
import { keysetPage } from '../platform/db/keyset.js';
import type { BrandTable, FormTable } from '../platform/db/schema.js';
import type { Store, Tx } from '../platform/db/store.js';
import type { PageQuery } from '../shared/paging.js';

const FORM_COLUMNS = [
  'id',
  'name',
  'allowed_origins',
  'redirect_url',
  'honeypot_field',
  'captcha_provider',
  'captcha_site_key',
  'captcha_secret',
  'consent_text',
  'auto_reply',
  'default_priority',
  'default_category',
  'enabled',
  'created_at',
  'updated_at',
  'language',
  'fields',
  'questions',
] as const;

/** A form's row without its brand. */
export type FormRow = Pick<Selectable<FormTable>, (typeof FORM_COLUMNS)[number]>;

/** The brand's language: a new form's until one is chosen. */
export async function selectBrandLanguage({ db }: Store, brandId: string): Promise<string | undefined> {
  const row = await db.selectFrom('brands').select('language').where('id', '=', brandId).executeTakeFirst();
  return row?.language;
}

/** The brand's default country: a form's country select chooses it. */
export async function selectBrandCountry({ db }: Store, brandId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('brands')
    .select('default_country')
    .where('id', '=', brandId)
    .executeTakeFirst();
  return row?.default_country;
}

export async function insertForm(tx: Tx, row: Insertable<FormTable>): Promise<void> {
  await tx.db.insertInto('forms').values(row).execute();
}

/** A page of the brand's forms (limit + 1 rows, see keysetPage). */
export function selectFormPage({ db }: Store, brandId: string, query: PageQuery): Promise<FormRow[]> {
  return keysetPage(
    db.selectFrom('forms').select(FORM_COLUMNS).where('brand_id', '=', brandId),
    { time: 'created_at', id: 'id' },
    query,
  ).execute();
}

export function selectForm({ db }: Store, brandId: string, id: string): Promise<FormRow | undefined> {
  return db
    .selectFrom('forms')
    .select(FORM_COLUMNS)
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .executeTakeFirst();
}

/** Changes the brand's form; false when it has none by that id. */
export async function updateForm(
  tx: Tx,
  brandId: string,
  id: string,
  set: Updateable<FormTable>,
): Promise<boolean> {
  const result = await tx.db
    .updateTable('forms')
    .set(set)
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes the brand's form; false when it has none by that id. */
export async function deleteForm(tx: Tx, brandId: string, id: string): Promise<boolean> {
  const result = await tx.db
    .deleteFrom('forms')
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** An enabled form with what the public endpoint needs of its brand. */
export type PublicFormRow = FormRow & {
  brand_id: Selectable<BrandTable>['id'];
  brand_name: Selectable<BrandTable>['name'];
} & Pick<Selectable<BrandTable>, 'default_country'>;

/** The enabled form with this id and its brand; undefined for an unknown or disabled form. */
export function selectEnabledForm({ db }: Store, id: string): Promise<PublicFormRow | undefined> {
  return db
    .selectFrom('forms as f')
    .innerJoin('brands as b', 'b.id', 'f.brand_id')
    .select(FORM_COLUMNS.map((c) => `f.${c}` as const))
    .select(['b.id as brand_id', 'b.name as brand_name', 'b.default_country as default_country'])
    .where('f.id', '=', id)
    .where('f.enabled', '=', 1)
    .executeTakeFirst();
}

/** The captcha secret of the brand's form: null when it has none, undefined when there is no such form. */
export async function selectFormCaptchaSecret(
  { db }: Store,
  brandId: string,
  id: string,
): Promise<string | null | undefined> {
  const row = await db
    .selectFrom('forms')
    .select('captcha_secret')
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .executeTakeFirst();
  return row === undefined ? undefined : row.captcha_secret;
}

/** A post refused for its origin, counted on its form, origin and day. */
export async function countRefusal(
  tx: Tx,
  row: { formId: string; origin: string; day: string; at: number },
): Promise<void> {
  await tx.db
    .insertInto('form_refusals')
    .values({ form_id: row.formId, origin: row.origin, day: row.day, count: 1, last_at: row.at })
    .onConflict((oc) =>
      oc.columns(['form_id', 'origin', 'day']).doUpdateSet((eb) => ({
        count: eb(eb.ref('form_refusals.count'), '+', 1),
        last_at: row.at,
      })),
    )
    .execute();
}

/** How many origins the form has refused posts from on a day (the cap on rows a day). */
export async function countRefusalOrigins({ db }: Store, formId: string, day: string): Promise<number> {
  const row = await db
    .selectFrom('form_refusals')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('form_id', '=', formId)
    .where('day', '=', day)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function refusalExists(
  { db }: Store,
  formId: string,
  origin: string,
  day: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('form_refusals')
    .select('count')
    .where('form_id', '=', formId)
    .where('origin', '=', origin)
    .where('day', '=', day)
    .executeTakeFirst();
  return row !== undefined;
}

/** Removes counts of days before `day` (every form's). */
export async function pruneRefusals(tx: Tx, beforeDay: string): Promise<void> {
  await tx.db.deleteFrom('form_refusals').where('day', '<', beforeDay).execute();
}

/** The brand's form's refused posts since `day`, by origin, the latest first. */
export function selectRefusals(
  { db }: Store,
  brandId: string,
  formId: string,
  sinceDay: string,
): Promise<{ origin: string; count: number | string; last_at: number | string }[]> {
  return db
    .selectFrom('form_refusals as r')
    .innerJoin('forms as f', 'f.id', 'r.form_id')
    .select((eb) => [
      'r.origin',
      eb.fn.sum<number | string>('r.count').as('count'),
      eb.fn.max('r.last_at').as('last_at'),
    ])
    .where('f.brand_id', '=', brandId)
    .where('r.form_id', '=', formId)
    .where('r.day', '>=', sinceDay)
    .groupBy('r.origin')
    .orderBy('last_at', 'desc')
    .orderBy('r.origin')
    .execute();
}
