// Process entry: read config, build the app, listen, and drain before shutting down on SIGTERM/SIGINT.
import { buildApp } from './app.js';
import { finishInterruptedRestore, sweepStaleBackups } from './platform/backup/archive.js';
import { type DataDirLock, lockShared } from './platform/backup/lock.js';
import { type Config, loadConfig } from './platform/config.js';
import { handleShutdownSignals } from './shutdown.js';

export async function serve(config: Readonly<Config> = loadConfig()): Promise<void> {
  // With SQLite the server holds the DATA_DIR lock for its lifetime (the OS drops it if the process dies), so a
  // restore refuses to run under it; it first finishes a restore a crash may have cut off.
  // It also removes what crashed backups left behind (their staging folders and partial archives).
  let lock: DataDirLock | undefined;
  let swept: string[] = [];
  if (config.database.dialect === 'sqlite' && config.database.file !== ':memory:') {
    lock = lockShared(config.dataDir);
    await finishInterruptedRestore(config.dataDir);
    swept = await sweepStaleBackups(config);
  }
  const app = await buildApp(config);
  if (swept.length) app.log.warn({ removed: swept }, 'removed what interrupted backups left behind');
  app.addHook('onClose', async () => lock?.release());
  // SIGTERM/SIGINT drain first, then close (src/shutdown.ts).
  handleShutdownSignals(app, { drainMs: config.shutdownDrainMs });
  const address = await app.listen({ host: config.host, port: config.port });
  // With PORT=0 the real port is only known now; PUBLIC_URL, when set, is what people should open.
  const base = config.publicUrlExplicit ? config.publicUrl : address;
  const where =
    config.database.dialect === 'sqlite'
      ? `${config.database.file} (${config.database.writeThread === false ? 'writes on the event loop' : 'writes on a thread of their own'})`
      : `PostgreSQL (schema ${config.database.schema})`;
  app.log.info(`lead-intake listening on ${base} with ${where}; API docs at ${base}/docs`);
}

const isEntry = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntry) {
  serve().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
