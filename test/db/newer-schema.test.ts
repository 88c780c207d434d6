// A rolling deploy: the previous release's instances keep running, and may restart, on a schema the new release has
// already migrated (expand first). migrate() then has nothing to do and must not refuse to start.
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { type Database, migrate, openDatabase } from '../../src/platform/db/database.js';
import { migrationNames } from '../../src/platform/db/migration-files.js';
import { dialects, dropSchemaNamed, testDatabaseConfig, testSchemaName } from '../helpers.js';

describe.each(dialects())('a schema migrated by a newer release on %s', (dialect) => {
  const schema = testSchemaName();
  let database: Database | undefined;
  afterAll(async () => {
    if (database && dialect === 'postgres') await dropSchemaNamed(database.db, schema);
    await database?.close();
  });

  it('starts this release without migrating or refusing', async () => {
    database = openDatabase(testDatabaseConfig(dialect, schema));
    const migrationSchema = dialect === 'postgres' ? schema : undefined;
    await migrate(database, migrationSchema);
    const table = dialect === 'postgres' ? sql`${sql.id(schema)}.kysely_migration` : sql`kysely_migration`;
    // What the next release's expand migration leaves behind.
    await sql`insert into ${table} (name, timestamp) values (${'2099010100_next_release'}, ${new Date().toISOString()})`.execute(
      database.db,
    );
    expect(await migrate(database, migrationSchema)).toEqual([]);
    const { rows } = await sql<{ name: string }>`select name from ${table} order by name`.execute(
      database.db,
    );
    expect(rows.map((r) => r.name)).toEqual([...migrationNames(), '2099010100_next_release']);
  });
});
