// A migrated database of its own for the tests of one describe block: opened and migrated before them, its
// schema dropped (PostgreSQL) and closed after them.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type Database, migrate, openDatabase } from '../src/platform/db/database.js';
import {
  dropSchemaNamed,
  migrateUpTo,
  type TestDialect,
  testDatabaseConfig,
  testSchemaName,
} from './helpers.js';

/** Call inside a describe block; the handle it returns is usable from beforeAll on. */
export function migratedDatabase(dialect: TestDialect): Database {
  let database: Database | undefined;
  const config = testDatabaseConfig(dialect);
  beforeAll(async () => {
    database = openDatabase(config, 'NORMAL');
    await migrate(database, config.dialect === 'postgres' ? config.schema : undefined);
  });
  afterAll(async () => {
    if (!database) return;
    if (config.dialect === 'postgres') await dropSchemaNamed(database.db, config.schema);
    await database.close();
  });
  // The database opens in beforeAll: the handle forwards to it.
  return new Proxy({} as Database, {
    get(_, key) {
      if (!database) throw new Error('migratedDatabase: used before beforeAll ran');
      const value = Reflect.get(database, key);
      return typeof value === 'function' ? value.bind(database) : value;
    },
  });
}

/**
 * For the tests of one migration, call inside a describe block: `open()` gives each test a database of its own
 * migrated up to and including `before` (the state the migration starts from), `migrate()` then runs the rest as
 * the service would; after each test its schema is dropped (PostgreSQL) and it is closed.
 */
export function databaseBefore(
  dialect: TestDialect,
  before: string,
): { open(): Promise<Database>; migrate(): Promise<string[]> } {
  let database: Database | undefined;
  const schema = testSchemaName();
  afterEach(async () => {
    if (database && dialect === 'postgres') await dropSchemaNamed(database.db, schema);
    await database?.close();
    database = undefined;
  });
  return {
    async open() {
      database = openDatabase(testDatabaseConfig(dialect, schema));
      await migrateUpTo(database, dialect, schema, before);
      return database;
    },
    migrate() {
      if (!database) throw new Error('databaseBefore: migrate() before open()');
      return migrate(database, dialect === 'postgres' ? schema : undefined);
    },
  };
}
