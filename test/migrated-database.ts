// A migrated database of its own for the tests of one describe block: opened and migrated before them, its
// schema dropped (PostgreSQL) and closed after them.
import { afterAll, beforeAll } from 'vitest';
import { type Database, migrate, openDatabase } from '../src/platform/db/database.js';
import { dropSchemaNamed, type TestDialect, testDatabaseConfig } from './helpers.js';

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
