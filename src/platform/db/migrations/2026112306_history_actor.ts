import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * Who did what: each status history entry names its actor (type key, user or form; id; name as it was then) and,
 * for a cancellation, the reason given. Entries written before this kept only an id in `actor` (a key's, or a
 * dashboard user's); they get type and name (a key's name, a user's email) back from the key or user while it still exists, and a form lead's
 * first entry gets its form. Where nothing is known the actor stays null: the API says so (`actor: null`).
 */
export function migration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // One column per statement: SQLite's ALTER TABLE adds one at a time.
      for (const column of ['actor_type', 'actor_id', 'actor_name', 'reason']) {
        await db.schema.alterTable('lead_status_history').addColumn(column, 'text').execute();
      }
      await sql`update lead_status_history set actor_type = 'key', actor_id = actor,
          actor_name = (select k.name from api_keys k where k.id = lead_status_history.actor)
        where exists (select 1 from api_keys k where k.id = lead_status_history.actor)`.execute(db);
      await sql`update lead_status_history set actor_type = 'user', actor_id = actor,
          actor_name = (select u.email from users u where u.id = lead_status_history.actor)
        where exists (select 1 from users u where u.id = lead_status_history.actor)`.execute(db);
      await sql`update lead_status_history set actor_type = 'form',
          actor_id = (select l.source_form_id from leads l where l.id = lead_status_history.lead_id),
          actor_name = (select coalesce(l.source_form_name, l.source_form_id) from leads l
            where l.id = lead_status_history.lead_id)
        where actor is null and seq = 1 and exists (
          select 1 from leads l where l.id = lead_status_history.lead_id and l.source_form_id is not null
        )`.execute(db);
    },
  };
}
