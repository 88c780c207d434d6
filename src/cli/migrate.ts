import { loadConfig } from '../platform/config.js';
import { migrate, openDatabase } from '../platform/db/database.js';
import { command } from './context.js';

export const MIGRATE_HELP = `Usage: lead-intake migrate

Brings the database schema up to date and exits. On PostgreSQL the migrations run under an advisory lock,
so this is safe while instances start; "serve" migrates too, so running it first is optional.`;

export const migrateCommand = command({ name: 'migrate', help: MIGRATE_HELP }, async (_flags, io) => {
  const config = loadConfig();
  const database = openDatabase(config.database, config.sqliteSynchronous);
  try {
    const applied = await migrate(
      database,
      config.database.dialect === 'postgres' ? config.database.schema : undefined,
    );
    io.out(
      applied.length
        ? `Applied ${applied.length} migration(s): ${applied.join(', ')}`
        : 'The database is up to date.',
    );
  } finally {
    await database.close();
  }
  return 0;
});
