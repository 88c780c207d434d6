// Scheduled backups in the server (SQLite only): one archive every BACKUP_INTERVAL_MINUTES into BACKUP_DIR, the
// newest BACKUP_KEEP of the service's own archives kept. The status survives a restart: the last success is the
// newest archive in BACKUP_DIR, the last failure a small file beside them (removed by the next success).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { ARCHIVE_NAME, type BackupResult, makeBackup, type Pacing } from './archive.js';

export const FAILURE_FILE = '.lead-intake-backup-failure.json';
/** With no archive yet, the first one is made this long after the start (or one interval, if shorter). */
const FIRST_BACKUP_DELAY_MS = 10 * 60 * 1000;

export interface BackupStatus {
  /** Why there is no schedule: PostgreSQL (its own tools), turned off (interval 0), or an in-memory database. */
  disabled: 'postgres' | 'off' | 'memory' | null;
  intervalMinutes: number;
  keep: number;
  dir: string;
  lastSuccess: { at: Date; bytes: number; path: string } | null;
  /** The last failure, when it is newer than the last success. */
  lastFailure: { at: Date; message: string } | null;
  failures: number;
}

interface Log {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface SchedulerOptions {
  log: Log;
  /** Overrides BACKUP_INTERVAL_MINUTES (tests run the schedule in seconds). */
  intervalMs?: number;
  /** Overrides when the first backup is made (ms from start). */
  firstDelayMs?: number;
  /** Overrides how the backup paces its copy (tests). */
  pacing?: Partial<Pacing>;
}

function timeOfName(name: string): Date | null {
  const match = ARCHIVE_NAME.exec(name);
  if (!match) return null;
  const s = match[1]!;
  const iso = `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}.${s.length > 16 ? s.slice(15, 18) : '000'}Z`;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The service's own archives in dir, newest first. */
export async function listArchives(dir: string): Promise<{ name: string; at: Date }[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  return names
    .map((name) => ({ name, at: timeOfName(name) }))
    .filter((a): a is { name: string; at: Date } => a.at !== null)
    .sort((a, b) => b.at.getTime() - a.at.getTime() || (a.name < b.name ? 1 : -1));
}

/** Deletes all but the newest `keep` of the service's archives in dir; never any other file. */
export async function rotateArchives(dir: string, keep: number): Promise<string[]> {
  const old = (await listArchives(dir)).slice(keep);
  for (const { name } of old) await fs.rm(path.join(dir, name), { force: true });
  return old.map((a) => a.name);
}

export class BackupScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<BackupResult | null> | undefined;
  private stopped = false;
  private cached: BackupStatus;
  private failures = 0;
  readonly disabled: BackupStatus['disabled'];
  readonly intervalMs: number;

  constructor(
    private readonly config: Readonly<Config>,
    private readonly options: SchedulerOptions,
  ) {
    const { backups } = config;
    this.disabled =
      config.database.dialect === 'postgres'
        ? 'postgres'
        : config.database.file === ':memory:'
          ? 'memory'
          : backups.intervalMinutes === 0 && options.intervalMs === undefined
            ? 'off'
            : null;
    this.intervalMs = options.intervalMs ?? backups.intervalMinutes * 60_000;
    this.cached = {
      disabled: this.disabled,
      intervalMinutes: backups.intervalMinutes,
      keep: backups.keep,
      dir: backups.dir,
      lastSuccess: null,
      lastFailure: null,
      failures: 0,
    };
  }

  /** The status as last read (cheap: for /metrics). */
  get current(): BackupStatus {
    return this.cached;
  }

  /** Reads the status from BACKUP_DIR again. */
  async status(): Promise<BackupStatus> {
    if (this.disabled === 'postgres' || this.disabled === 'memory') return this.cached;
    const dir = this.config.backups.dir;
    let lastSuccess: BackupStatus['lastSuccess'] = null;
    for (const archive of await listArchives(dir)) {
      const file = path.join(dir, archive.name);
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat?.isFile()) {
        lastSuccess = { at: archive.at, bytes: stat.size, path: file };
        break;
      }
    }
    let lastFailure: BackupStatus['lastFailure'] = null;
    try {
      const raw = JSON.parse(await fs.readFile(path.join(dir, FAILURE_FILE), 'utf8')) as {
        at: string;
        message: string;
      };
      const at = new Date(raw.at);
      if (!Number.isNaN(at.getTime()) && (!lastSuccess || at > lastSuccess.at)) {
        lastFailure = { at, message: String(raw.message) };
      }
    } catch {
      // No failure recorded.
    }
    this.cached = { ...this.cached, lastSuccess, lastFailure, failures: this.failures };
    return this.cached;
  }

  start(): void {
    if (this.disabled || this.stopped) return;
    void this.status().then((status) => {
      if (this.stopped) return;
      const first = this.options.firstDelayMs;
      const due =
        first !== undefined
          ? first
          : status.lastSuccess
            ? Math.max(5000, status.lastSuccess.at.getTime() + this.intervalMs - Date.now())
            : Math.min(this.intervalMs, FIRST_BACKUP_DELAY_MS);
      this.schedule(due);
    });
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(
      () => {
        void this.runOnce().then(() => this.schedule(this.intervalMs));
      },
      Math.min(delayMs, 2 ** 31 - 1),
    );
    this.timer.unref();
  }

  /** Makes one scheduled backup now and rotates; records and logs a failure instead of throwing. */
  runOnce(): Promise<BackupResult | null> {
    if (this.running) return this.running;
    this.running = this.backup().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async backup(): Promise<BackupResult | null> {
    const dir = this.config.backups.dir;
    const started = Date.now();
    try {
      const result = await makeBackup(this.config, { pacing: this.options.pacing });
      await fs.rm(path.join(dir, FAILURE_FILE), { force: true });
      const removed = await rotateArchives(dir, this.config.backups.keep);
      this.options.log.info(
        {
          path: result.path,
          bytes: result.bytes,
          leads: result.leads,
          attachments: result.attachments,
          ms: Date.now() - started,
          removed,
        },
        'backup made',
      );
      await this.status();
      return result;
    } catch (error) {
      this.failures++;
      const message = error instanceof Error ? error.message : String(error);
      this.options.log.error({ err: error, dir }, 'scheduled backup failed');
      try {
        await fs.mkdir(dir, { recursive: true });
        await fs.writeFile(
          path.join(dir, FAILURE_FILE),
          JSON.stringify({ at: new Date().toISOString(), message }),
        );
      } catch {
        // BACKUP_DIR itself may be what fails; the failure is still logged and counted.
      }
      await this.status().catch(() => undefined);
      if (!this.cached.lastFailure)
        this.cached = { ...this.cached, lastFailure: { at: new Date(), message } };
      return null;
    }
  }

  /** Stops the schedule and waits for a backup in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}
