import { BackupArchiveError, BackupTooNewError, restoreBackup } from '../platform/backup/archive.js';
import { DataDirBusyError, lockExclusive } from '../platform/backup/lock.js';
import { loadConfig } from '../platform/config.js';
import { command, type Io, JSON_FLAG, sqliteOnly, UsageError } from './context.js';

export const RESTORE_HELP = `Usage: lead-intake restore FILE [--json]

Puts a backup made by "lead-intake backup" (or the server's scheduled backups) in place of DATA_DIR's
database and attachments. What was there is kept in DATA_DIR/before-restore-<UTC time>/.
Refuses, changing nothing, while a server runs on DATA_DIR (stop it first) and when FILE is not a complete,
intact backup (every file is checked against the checksums in its manifest, the database with integrity_check).
  --json      print { "path", "before", "leads", "attachments", "createdAt" }
With DATABASE_URL (PostgreSQL) use pg_restore instead; see "Backups" in docs/operations.md.`;

export const restoreCommand = command(
  { name: 'restore', help: RESTORE_HELP, options: { json: JSON_FLAG }, positionals: true },
  async ({ values, positionals }, io: Io) => {
    const [file, ...extra] = positionals;
    if (file === undefined) throw new UsageError(`Say which backup to restore.\n\n${RESTORE_HELP}`);
    if (extra.length) throw new UsageError(`Unexpected argument "${extra[0]}".\n\n${RESTORE_HELP}`);
    const config = sqliteOnly(loadConfig());
    let lock: ReturnType<typeof lockExclusive> | undefined;
    try {
      lock = lockExclusive(config.dataDir);
      const result = await restoreBackup(config, file);
      if (values.json) {
        const { path, before, leads, attachments, createdAt } = result;
        io.out(JSON.stringify({ path, before, leads, attachments, createdAt }));
      } else {
        const what = result.attachmentsIncluded
          ? `${result.leads} lead(s) and ${result.attachments} attachment(s)`
          : `${result.leads} lead(s) (the database only: its attachments are in S3)`;
        io.out(
          `Restored the backup of ${result.createdAt} into ${config.dataDir}: ${what}. What was there is in ${result.before}.`,
        );
      }
      return 0;
    } catch (error) {
      if (
        error instanceof DataDirBusyError ||
        error instanceof BackupArchiveError ||
        error instanceof BackupTooNewError
      ) {
        const reason =
          error instanceof BackupArchiveError
            ? `${file} is not a complete, intact backup: ${error.message}`
            : error instanceof BackupTooNewError
              ? `${file}: ${error.message}`
              : error.message;
        throw new UsageError(`Not restored: ${reason}. Nothing was changed.`);
      }
      throw error;
    } finally {
      lock?.release();
    }
  },
);
