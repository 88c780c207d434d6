// The database objects that follow the field table (src/leads/fields.ts): the list JSON's triggers, which the
// migrations wrote down by hand and recreateListJsonTriggers derives from the table, and the search document's
// triggers, which watch the columns of the fields the table marks searched. On a fresh database, each must be
// what the table says today.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import { LEAD_BODY_EXAMPLE } from '../../src/api/examples.js';
import { createLead } from '../../src/leads/create.js';
import { leadField, leadFieldsWhere } from '../../src/leads/fields.js';
import { parseLeadInput } from '../../src/leads/input.js';
import { renderMissingListJson } from '../../src/leads/list-json.js';
import { recreateListJsonTriggers } from '../../src/leads/list-json-triggers.js';
import type { Database } from '../../src/platform/db/database.js';
import { dialects } from '../helpers.js';
import { migratedDatabase } from '../migrated-database.js';

interface Trigger {
  name: string;
  table: string;
  /** The trigger's definition, and on PostgreSQL its function's body, as the database keeps them. */
  text: string;
}

async function triggers(database: Database, prefix: string): Promise<Trigger[]> {
  if (database.dialect === 'sqlite') {
    const { rows } = await sql<{ name: string; tbl_name: string; sql: string }>`
      select name, tbl_name, sql from sqlite_master where type = 'trigger' and name like ${`${prefix}%`}
      order by name`.execute(database.db);
    return rows.map((r) => ({ name: r.name, table: r.tbl_name, text: r.sql }));
  }
  const { rows } = await sql<{ name: string; table: string; def: string; body: string }>`
    select t.tgname as name, c.relname as table, pg_get_triggerdef(t.oid) as def, p.prosrc as body
    from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
    join pg_proc p on p.oid = t.tgfoid
    where n.nspname = current_schema() and not t.tgisinternal and t.tgname like ${`${prefix}%`}
    order by t.tgname`.execute(database.db);
  return rows.map((r) => ({ name: r.name, table: r.table, text: `${r.def}\n${r.body}` }));
}

/**
 * A trigger's text with what does not change its meaning taken out: spacing, case, the schema's name, parentheses
 * and the order of the watched columns and of the conditions joined by `or`.
 */
function canonical(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .toLowerCase()
    .replace(/\bt_[0-9a-f]{12}\./g, '')
    .replace(/[()]/g, '')
    .replace(
      /update of (.+?) on /g,
      (_m, columns: string) => `update of ${columns.split(', ').sort().join(', ')} on `,
    )
    .replace(
      / when (.+?) (begin|execute) /g,
      (_m, condition: string, next: string) =>
        ` when ${condition
          .split(' or ')
          .map((t) => t.trim())
          .sort()
          .join(' or ')} ${next} `,
    )
    .trim();
}

/** The columns a trigger fires on (`after update of …`). */
function watchedColumns(trigger: Trigger | undefined): string[] {
  const columns = /update of ([\s\S]+?)\s+on\s/i.exec(trigger?.text ?? '')?.[1] ?? '';
  return columns
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter(Boolean)
    .sort();
}

const columnsOf = (match: Parameters<typeof leadFieldsWhere>[0]) =>
  leadFieldsWhere(match)
    .map((name) => leadField(name).column)
    .sort();

describe.each(dialects())('triggers that follow the field table on %s', (dialect) => {
  const database = migratedDatabase(dialect);

  it('the list JSON triggers the migrations leave watch the listed customer and address columns', async () => {
    const found = await triggers(database, 'leads_list_json');
    expect(found.map((t) => t.name)).toEqual([
      'leads_list_json_address',
      'leads_list_json_customer',
      'leads_list_json_lead',
    ]);
    const byName = new Map(found.map((t) => [t.name, t]));
    expect(watchedColumns(byName.get('leads_list_json_customer'))).toEqual(
      columnsOf({ group: 'customer', listed: true }),
    );
    expect(watchedColumns(byName.get('leads_list_json_address'))).toEqual(
      columnsOf({ group: 'address', listed: true }),
    );
    // The lead's own: any update of the lead, whichever field it lists.
    expect(watchedColumns(byName.get('leads_list_json_lead'))).toEqual([]);
  });

  it('recreateListJsonTriggers makes the triggers the migrations made, and forgets the stored items', async () => {
    const migrated = await triggers(database, 'leads_list_json');
    await recreateListJsonTriggers(database.db, dialect);
    const derived = await triggers(database, 'leads_list_json');
    expect(derived.map((t) => ({ ...t, text: canonical(t.text) }))).toEqual(
      migrated.map((t) => ({ ...t, text: canonical(t.text) })),
    );
    // Twice is the same as once.
    await recreateListJsonTriggers(database.db, dialect);
    expect((await triggers(database, 'leads_list_json')).map((t) => canonical(t.text))).toEqual(
      derived.map((t) => canonical(t.text)),
    );
  });

  it('recreated, they clear an item when a listed column changes and keep it otherwise', async () => {
    const brand = await createBrand(database, { language: 'en', name: 'Trigger brand', country: 'NL' });
    const lead = await createLead(
      database,
      { brandId: brand.id, source: 'website', keyId: null, keyName: null },
      parseLeadInput(LEAD_BODY_EXAMPLE),
    );
    const stored = async () =>
      (
        await database.db
          .selectFrom('leads')
          .select('list_json')
          .where('id', '=', lead.id)
          .executeTakeFirstOrThrow()
      ).list_json;
    const { customer_id: customerId } = await database.db
      .selectFrom('leads')
      .select('customer_id')
      .where('id', '=', lead.id)
      .executeTakeFirstOrThrow();
    // A create stores the item; recreating the triggers forgets it.
    expect(await stored()).not.toBeNull();
    await recreateListJsonTriggers(database.db, dialect);
    expect(await stored()).toBeNull();
    await renderMissingListJson(database);
    expect(await stored()).not.toBeNull();
    // first_name is in no list item: the item stays. The name is: it goes.
    await database.db
      .updateTable('customers')
      .set({ first_name: 'Anna' })
      .where('id', '=', customerId)
      .execute();
    expect(await stored()).not.toBeNull();
    await database.db
      .updateTable('customers')
      .set({ name: 'Anna V.' })
      .where('id', '=', customerId)
      .execute();
    expect(await stored()).toBeNull();
  });

  it('the search triggers watch the columns of the fields the table marks searched', async () => {
    const found = new Map((await triggers(database, 'lead_search')).map((t) => [t.name, t]));
    expect(watchedColumns(found.get('lead_search_customer'))).toEqual(
      columnsOf({ group: 'customer', searched: true }),
    );
    expect(watchedColumns(found.get('lead_search_address'))).toEqual(
      columnsOf({ group: 'address', searched: true }),
    );
    // The lead's: its searched fields, and what links it to its customer, address and contact as submitted.
    expect(watchedColumns(found.get('lead_search_lead'))).toEqual(
      [...columnsOf({ group: 'job', searched: true }), 'address_id', 'customer_id', 'submitted'].sort(),
    );
  });
});
