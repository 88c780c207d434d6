import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Planning the visit: when a work item is done (scheduled_for, beside scheduled_at, which stays the moment it was
 * scheduled), for how long, and by whom (assignee_id: a user of the brand; no foreign key, removing a user clears
 * it in the same write). An index for the planning page's "this brand's visits between two moments". Users get a
 * display name (nullable: the email stands in while there is none). Brands get a time zone (IANA name) that the
 * dashboard shows times in: Europe/Amsterdam for Dutch brands, UTC for the others.
 */
export function migration(dialect: Dialect) {
  const time = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('leads').addColumn('scheduled_for', time).execute();
      await db.schema.alterTable('leads').addColumn('duration_minutes', 'integer').execute();
      await db.schema.alterTable('leads').addColumn('assignee_id', 'text').execute();
      await db.schema
        .createIndex('leads_brand_scheduled_for')
        .on('leads')
        .columns(['brand_id', 'scheduled_for'])
        .where(sql<boolean>`scheduled_for is not null`)
        .execute();
      await db.schema.alterTable('users').addColumn('name', 'text').execute();
      await db.schema
        .alterTable('brands')
        .addColumn('time_zone', 'text', (c) => c.notNull().defaultTo('UTC'))
        .execute();
      await sql`update brands set time_zone = 'Europe/Amsterdam' where default_country = 'NL'`.execute(db);
    },
  };
}
