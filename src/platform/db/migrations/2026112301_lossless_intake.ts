import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Nothing submitted is lost: each lead keeps its contact and address as submitted (JSON text), filled for
 * existing leads from the records they link to, the best that is known. Two customers may now share a phone
 * (linking by phone only where the email does not decide), so that index stops being unique; an address links
 * only when its street matches too, so the street joins the match key. Lead activity records changes made to a
 * lead or on its behalf (who, when, what) besides its states.
 */
export function migration(dialect: Dialect) {
  const idType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('leads')
        .addColumn('submitted', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();
      const fields = sql.join([
        sql`'customerName', c.name`,
        sql`'firstName', c.first_name`,
        sql`'lastName', c.last_name`,
        sql`'email', c.email`,
        sql`'phone', c.phone`,
        sql`'companyName', c.company_name`,
        sql`'street', a.street`,
        sql`'streetNumber', a.street_number`,
        sql`'streetNumberAddition', a.street_number_addition`,
        sql`'postalCode', a.postal_code`,
        sql`'city', a.city`,
        sql`'country', a.country`,
      ]);
      const object =
        dialect === 'postgres' ? sql`json_build_object(${fields})::text` : sql`json_object(${fields})`;
      await sql`update leads set submitted = (select ${object} from customers c, addresses a
        where c.id = leads.customer_id and a.id = leads.address_id)`.execute(db);

      await db.schema.dropIndex('customers_brand_phone').execute();
      await db.schema
        .createIndex('customers_brand_phone')
        .on('customers')
        .columns(['brand_id', 'phone'])
        .execute();
      await db.schema
        .createIndex('customers_brand_created')
        .on('customers')
        .columns(['brand_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('leads_customer_received')
        .on('leads')
        .columns(['customer_id', 'received_at', 'id'])
        .execute();
      await db.schema.dropIndex('leads_customer').execute();

      // The street, without whitespace and in lower case, joins the key (see addressMatchKey).
      const street =
        dialect === 'postgres'
          ? sql`lower(regexp_replace(street, '\\s', '', 'g'))`
          : sql`lower(replace(replace(replace(replace(street, ' ', ''), char(9), ''), char(10), ''), char(13), ''))`;
      await sql`update addresses set match_key = match_key || '|' || ${street}`.execute(db);

      await db.schema
        .createTable('lead_activity')
        .addColumn('id', idType, (c) => c.primaryKey())
        .addColumn('lead_id', idType, (c) => c.notNull().references('leads.id').onDelete('cascade'))
        .addColumn('at', time, (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('actor_type', 'text', (c) => c.notNull())
        .addColumn('actor_id', 'text')
        .addColumn('actor_name', 'text')
        .addColumn('detail', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('lead_activity_lead')
        .on('lead_activity')
        .columns(['lead_id', 'at'])
        .execute();
    },
  };
}
