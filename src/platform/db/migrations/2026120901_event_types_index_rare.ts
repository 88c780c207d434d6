import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * SQLite: the index of events by type leaves out the two types every create writes (issue 33).
 *
 * `events_brand_type_created` (brand, type, time, id) serves the events list filtered by `type`. Each create
 * writes a `lead.created` event, and a `customer.created` one for a new customer: two entries a create, each at
 * the end of its own type's run in the middle of the index. SQLite rebalances a middle leaf with its neighbours
 * when it fills, so this one index cost a group of creates 7.2 WAL frames, more than any other index but the two
 * over random ids (bench/results/issue-33/round-13/wal/wal-by-tree.txt).
 *
 * Those two types are a large share of any brand's events, so a list of them reads `events_brand_created` in its
 * order and skips the other types: no entries of theirs are needed here. The index now holds every other type,
 * the rare ones a filter must not scan a brand's whole history for. A list asks for it by repeating this
 * condition, word for word, when none of the types it wants is one of the two (webhooks/queries.ts,
 * EVERY_CREATE_TYPES): SQLite uses a partial index only for a query whose WHERE contains its condition.
 *
 * PostgreSQL: unchanged. Its B-tree inserts into the middle of an index cost no page write per commit the way
 * SQLite's WAL frames do, and the full index serves every type.
 */
const RARE_TYPES_CONDITION = `"type" not in ('lead.created', 'customer.created')`;

export function migration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await sql`drop index events_brand_type_created`.execute(db);
      await sql
        .raw(
          `create index events_brand_type_created on events (brand_id, type, created_at, id) where ${RARE_TYPES_CONDITION}`,
        )
        .execute(db);
    },
  };
}
