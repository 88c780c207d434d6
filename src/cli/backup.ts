import { BackupArchiveError, BackupUnavailableError, makeBackup } from '../platform/backup/archive.js';
import { DataDirBusyError, lockShared } from '../platform/backup/lock.js';
import { loadConfig } from '../platform/config.js';
import { command, type Io, JSON_FLAG, sqliteOnly, UsageError } from './context.js';

export const BACKUP_HELP = `Usage: lead-intake backup [--to FILE] [--json]

Makes a consistent copy of the SQLite database and the attachments on disk while the server runs and takes
writes, checks it (integrity_check) and writes it as one tar.gz with a manifest of every file's checksum.
Every write acknowledged before the command started is in it.
  --to FILE   where the archive goes (default BACKUP_DIR/lead-intake-<UTC time>.tar.gz; BACKUP_DIR defaults
              to DATA_DIR/backups)
  --json      print { "path", "bytes", "leads", "attachments", "createdAt" }
With ATTACHMENT_STORAGE=s3 the archive holds the database only: the bucket keeps its own versions.
With DATABASE_URL (PostgreSQL) use pg_dump instead; see "Backups" in docs/operations.md.`;

export function megabytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export const backupCommand = command(
  {
    name: 'backup',
    help: BACKUP_HELP,
    options: { to: { type: 'string' }, json: JSON_FLAG },
    positionals: true,
  },
  async ({ values, positionals }, io: Io) => {
    if (positionals.length) {
      throw new UsageError(
        `Unexpected argument "${positionals[0]}": give the file with --to.\n\n${BACKUP_HELP}`,
      );
    }
    if (values.to !== undefined && values.to.trim() === '') throw new UsageError('--to needs a file name.');
    const config = sqliteOnly(loadConfig());
    let lock: ReturnType<typeof lockShared> | undefined;
    try {
      // Shared with a running server; a restore in progress holds it exclusively.
      lock = lockShared(config.dataDir, 0);
      const result = await makeBackup(config, { to: values.to });
      if (values.json) {
        const { path, bytes, leads, attachments, createdAt } = result;
        io.out(JSON.stringify({ path, bytes, leads, attachments, createdAt }));
      } else {
        const what = result.attachmentsIncluded
          ? `${result.leads} lead(s) and ${result.attachments} attachment(s)`
          : `${result.leads} lead(s) (the database only: attachments are in S3, which keeps its own versions)`;
        io.out(`Backed up ${what} to ${result.path} (${megabytes(result.bytes)}).`);
      }
      return 0;
    } catch (error) {
      if (
        error instanceof DataDirBusyError ||
        error instanceof BackupUnavailableError ||
        error instanceof BackupArchiveError
      ) {
        throw new UsageError(`No backup made: ${error.message}`);
      }
      throw error;
    } finally {
      lock?.release();
    }
  },
);
