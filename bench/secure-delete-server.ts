// The service for bench/personal-data.ts's secure_delete arms: the real app (buildApp) on the configured SQLite
// database, opened as the product opens it (secure_delete on), and with BENCH_SECURE_DELETE=off the pragma turned
// off on that connection before the app is built. Only this bench script reads the variable; the product has no
// such setting. Started as its own process (bench/processes.ts Server.start), so the load generator does not
// share its event loop.
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/platform/config.js';
import { openDatabase } from '../src/platform/db/database.js';

const config = loadConfig();
if (config.database.dialect !== 'sqlite')
  throw new Error('secure_delete is a SQLite pragma: no DATABASE_URL');
const database = openDatabase(config.database, config.sqliteSynchronous);
if (process.env.BENCH_SECURE_DELETE === 'off') await sql`pragma secure_delete = OFF`.execute(database.db);
const { rows } = await sql<{ secure_delete: number }>`pragma secure_delete`.execute(database.db);
const expected = process.env.BENCH_SECURE_DELETE === 'off' ? 0 : 1;
if (rows[0]?.secure_delete !== expected) throw new Error(`secure_delete is ${rows[0]?.secure_delete}`);

const app = await buildApp(config, { database, backupSchedule: false });
const stop = async () => {
  await app.close();
  await database.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
await app.listen({ host: config.host, port: config.port });
