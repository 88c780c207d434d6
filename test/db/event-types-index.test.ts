// SQLite's index of events by type leaves out the two types every create writes (migration 2026120901): a list of
// rare types reads that index, a list with lead.created or customer.created reads the brand's events in order;
// both find exactly the brand's events of those types, in order, on both databases.
import { type CompiledQuery, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { EVERY_CREATE_TYPES, selectEventPage } from '../../src/webhooks/queries.js';
import { dialects } from '../helpers.js';
import { migratedDatabase } from '../migrated-database.js';

const TYPES = ['lead.created', 'customer.created', 'lead.status_changed', 'customer.erased', 'note.created'];

describe.each(dialects())('events by type (%s)', (dialect) => {
  const database = migratedDatabase(dialect);

  /** The page's rows, and the statement selectEventPage ran (caught on its way to the driver). */
  async function page(brandId: string, types: string[] | undefined, order: 'asc' | 'desc' = 'desc') {
    const compiled: CompiledQuery[] = [];
    const db = database.db.withPlugin({
      transformQuery: ({ node, queryId }) => {
        compiled.push(database.db.getExecutor().compileQuery(node, queryId));
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    const rows = await selectEventPage({ ...database, db } as typeof database, brandId, {
      limit: 50,
      order,
      types,
    });
    return { rows, statement: compiled[0]! };
  }

  async function plan(statement: CompiledQuery): Promise<string> {
    const explained = await database.db.executeQuery<{ detail: string }>({
      ...statement,
      sql: `explain query plan ${statement.sql}`,
    } as CompiledQuery<{ detail: string }>);
    return explained.rows.map((r) => r.detail).join('\n');
  }

  it('finds exactly the brand’s events of the types asked, newest first, whichever index reads them', async () => {
    const brands = ['brd_ev_a', 'brd_ev_b'];
    for (const id of brands) {
      await sql`insert into brands (id, name, default_country, created_at) values (${id}, ${id}, 'NL', 1)`.execute(
        database.db,
      );
    }
    const made: { id: string; brand: string; type: string; at: number }[] = [];
    for (let n = 0; n < 60; n++) {
      const event = {
        id: `evt_${String(n).padStart(4, '0')}`,
        brand: brands[n % 2]!,
        type: TYPES[n % TYPES.length]!,
        at: 1_000 + n,
      };
      made.push(event);
      await sql`insert into events (id, brand_id, type, created_at, data)
        values (${event.id}, ${event.brand}, ${event.type}, ${event.at}, '{}')`.execute(database.db);
    }
    const expected = (types: string[]) =>
      made
        .filter((e) => e.brand === 'brd_ev_a' && types.includes(e.type))
        .sort((x, y) => y.at - x.at)
        .map((e) => e.id);
    for (const types of [
      ['lead.created'],
      ['customer.created', 'note.created'],
      ['lead.status_changed'],
      ['customer.erased', 'note.created'],
    ]) {
      const { rows } = await page('brd_ev_a', types);
      expect(rows.map((r) => r.id)).toEqual(expected(types));
      expect(rows.every((r) => types.includes(r.type))).toBe(true);
    }
    expect((await page('brd_ev_a', undefined)).rows).toHaveLength(30);
  });

  it.runIf(dialect === 'sqlite')(
    'reads the index by type for rare types only, and the brand’s events in order for the types of a create',
    async () => {
      const [index] = (
        await sql<{
          sql: string;
        }>`select sql from sqlite_master where name = 'events_brand_type_created'`.execute(database.db)
      ).rows;
      for (const type of EVERY_CREATE_TYPES) expect(index!.sql).toContain(`'${type}'`);
      const rareStatement = (await page('brd_ev_a', ['lead.status_changed'])).statement;
      const rare = await plan(rareStatement);
      expect(rare).toContain('USING INDEX events_brand_type_created');
      const everyCreate = await plan((await page('brd_ev_a', ['lead.created'])).statement);
      expect(everyCreate).toContain('USING INDEX events_brand_created');
      expect(everyCreate).not.toContain('TEMP B-TREE');
      const mixed = await plan((await page('brd_ev_a', ['customer.created', 'note.created'])).statement);
      expect(mixed).toContain('USING INDEX events_brand_created');
    },
  );
});
