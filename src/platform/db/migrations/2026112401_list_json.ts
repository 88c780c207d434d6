import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Each lead's list item kept as ready JSON (leads.list_json), so a page of the API's lists is one index range read
 * and a concatenation instead of 101 joined rows of 16 columns mapped and serialised (see leads/list-json.ts).
 *
 * list_json is a copy that may be missing, never one that is stale: triggers clear it whenever what it was built
 * from changes (any update of the lead, or of the listed fields of its customer or address), and list_rev counts
 * those clearings. Whoever renders an item writes it back only while list_rev is still the one it rendered from,
 * and moves list_rev on with it; a write that moves list_rev itself (a write-back) is one the triggers leave alone.
 * Leads that exist before this migration have none yet: the lists render them on first read.
 */
export function migration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const exec = (text: string) => sql.raw(text).execute(db);
      await db.schema.alterTable('leads').addColumn('list_json', 'text').execute();
      await db.schema
        .alterTable('leads')
        .addColumn('list_rev', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      const clear = (where: string) =>
        `update leads set list_json = null, list_rev = list_rev + 1 where ${where}`;
      const customerChanged = (distinct: string) =>
        ['name', 'company_name', 'email', 'phone'].map((c) => `new.${c} ${distinct} old.${c}`).join(' or ');
      const addressChanged = (distinct: string) =>
        ['street', 'street_number', 'postal_code', 'city']
          .map((c) => `new.${c} ${distinct} old.${c}`)
          .join(' or ');
      if (dialect === 'sqlite') {
        // SQLite cannot change NEW: the lead's own trigger clears it with a second update, which moves list_rev and
        // so does not fire the trigger again (nor would it: recursive triggers are off).
        await exec(`create trigger leads_list_json_lead after update on leads when new.list_rev is old.list_rev
          begin ${clear('id = new.id')}; end`);
        await exec(`create trigger leads_list_json_customer after update of name, company_name, email, phone
          on customers when ${customerChanged('is not')} begin ${clear('customer_id = new.id')}; end`);
        await exec(`create trigger leads_list_json_address after update of street, street_number, postal_code, city
          on addresses when ${addressChanged('is not')} begin ${clear('address_id = new.id')}; end`);
        return;
      }
      await exec(`create function leads_list_json_lead() returns trigger language plpgsql as $$
        begin
          if new.list_rev = old.list_rev then
            new.list_json := null;
            new.list_rev := old.list_rev + 1;
          end if;
          return new;
        end $$`);
      await exec(`create trigger leads_list_json_lead before update on leads for each row
        execute function leads_list_json_lead()`);
      await exec(`create function leads_list_json_customer() returns trigger language plpgsql as $$
        begin ${clear('customer_id = new.id')}; return null; end $$`);
      await exec(`create trigger leads_list_json_customer after update of name, company_name, email, phone
        on customers for each row when (${customerChanged('is distinct from')})
        execute function leads_list_json_customer()`);
      await exec(`create function leads_list_json_address() returns trigger language plpgsql as $$
        begin ${clear('address_id = new.id')}; return null; end $$`);
      await exec(`create trigger leads_list_json_address after update of street, street_number, postal_code, city
        on addresses for each row when (${addressChanged('is distinct from')})
        execute function leads_list_json_address()`);
    },
  };
}
