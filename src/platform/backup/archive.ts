// Backups of the embedded database and the attachments on disk as one tar.gz, and putting one back.
//
// The archive: manifest.json (format version, app version, createdAt, counts, and every other file's path, size and
// sha256), database/lead-intake.sqlite, and attachments/<key> for each stored file (disk storage; with S3 the
// manifest says the bucket is not included: S3 keeps its own versions).
//
// Making one: SQLite's online backup copies the database page by page from its own read-only connection, which
// holds a read transaction for the whole copy. In WAL mode that transaction is a snapshot that writers never wait
// for, and the copy does not start over when another connection writes (it would, forever, under a steady write
// load, without it). The copy is checked with integrity_check, attachments are hard-linked beside it (they are
// never changed in place: a put renames a new file in), everything is hashed into the manifest and packed into
// BACKUP_DIR, written under a temporary name and renamed when complete. The copy, the check, the hashing and the
// packing run on worker threads at low CPU priority, paced (see WORKER), so a server making a scheduled backup, or
// serving beside `lead-intake backup`, keeps answering. Each backup works in a staging folder DATA_DIR/.backup-*
// holding its own lock: what a crashed one leaves there (and its partial archive) the next backup, the server's
// start and restore remove (sweepStaleBackups).
//
// Putting one back: extract into a folder inside DATA_DIR, check the manifest, every file's size and checksum, no
// file more or less, and the database's integrity, then move what is there to before-restore-<time>/ and the new
// files in by renames, each atomic. A journal of those renames lets the next start finish a restore a crash cut off.
// An archive whose database has a migration this version does not know (made by a newer lead-intake) is refused
// before anything moves: this version could not open it.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import * as tar from 'tar';
import type { Config } from '../config.js';
import { migrationNames, migrationsAppliedTo } from '../db/migration-files.js';
import { fsyncPath } from '../fsync.js';
import { type DataDirLock, LOCK_FILE, lockExclusive, lockShared } from './lock.js';

export const FORMAT = 'lead-intake-backup';
export const FORMAT_VERSION = 1;
export const MANIFEST = 'manifest.json';
const DB_ENTRY = 'database/lead-intake.sqlite';
const ATTACHMENTS_ENTRY = 'attachments';
/** Pages per step of the online backup (4 KiB each): small, so the server's writes interleave. */
export const PAGES_PER_STEP = 256;
/** The archives the service names: lead-intake-<UTC time>.tar.gz. Rotation only ever deletes these. */
export const ARCHIVE_NAME = /^lead-intake-(\d{8}T\d{6}(?:\d{3})?Z)\.tar\.gz$/;
const RESTORE_JOURNAL = 'restore-journal.json';
/** A restore's working folder in DATA_DIR. */
const RESTORE_PREFIX = '.restore-';

export interface ManifestFile {
  path: string;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: typeof FORMAT;
  formatVersion: number;
  appVersion: string;
  createdAt: string;
  /** lastMigration: the newest schema change applied to the copy (absent in archives of the first version). */
  database: { dialect: 'sqlite'; file: string; lastMigration?: string | null };
  attachments: { storage: 'disk' | 's3'; included: boolean; note?: string };
  counts: { brands: number; users: number; leads: number; attachments: number };
  files: ManifestFile[];
}

export interface BackupResult {
  path: string;
  bytes: number;
  leads: number;
  attachments: number;
  createdAt: string;
  /** False with S3 storage: the archive holds the database only. */
  attachmentsIncluded: boolean;
}

export interface RestoreResult {
  path: string;
  before: string;
  leads: number;
  attachments: number;
  createdAt: string;
  attachmentsIncluded: boolean;
}

/** The archive is not a complete, intact backup (nothing was changed). */
export class BackupArchiveError extends Error {}

/**
 * The archive was made by a newer lead-intake whose database has schema changes (migrations) this version does not
 * know: it could not open it. Nothing was changed.
 */
export class BackupTooNewError extends Error {
  constructor(
    readonly archiveVersion: string,
    readonly appVersion: string,
    readonly unknownMigrations: string[],
  ) {
    super(
      `it was made by lead-intake ${archiveVersion}, whose database has changes this version (${appVersion}) does not know (migration ${unknownMigrations.join(', ')}); restore it with lead-intake ${archiveVersion} or newer`,
    );
  }
}

/** A backup or restore that is impossible with this configuration (PostgreSQL, nothing to back up). */
export class BackupUnavailableError extends Error {}

export const POSTGRES_MESSAGE =
  'DATABASE_URL is set: PostgreSQL is backed up with its own tools (pg_dump and pg_restore, or point-in-time recovery), not with this command. See "Backups" in docs/operations.md. Nothing was changed.';

let appVersionCache: string | undefined;
export async function appVersion(): Promise<string> {
  if (!appVersionCache) {
    const file = new URL('../../../package.json', import.meta.url);
    appVersionCache = (JSON.parse(await fs.readFile(file, 'utf8')) as { version: string }).version;
  }
  return appVersionCache;
}

/** 2026-11-25T23:14:05.123Z → 20261125T231405123Z: sortable, and safe in a file name everywhere. */
export function stamp(date: Date): string {
  return date.toISOString().replace(/[-:.]/g, '');
}

/** BACKUP_DIR/lead-intake-<UTC time to the second>.tar.gz, or to the millisecond when that name is taken. */
export async function defaultArchivePath(config: Readonly<Config>, date: Date): Promise<string> {
  const seconds = path.join(config.backups.dir, `lead-intake-${stamp(date).replace(/\d{3}Z$/, 'Z')}.tar.gz`);
  if (!(await exists(seconds))) return seconds;
  return path.join(config.backups.dir, `lead-intake-${stamp(date)}.tar.gz`);
}

function sqliteFile(config: Readonly<Config>): string {
  if (config.database.dialect !== 'sqlite') throw new BackupUnavailableError(POSTGRES_MESSAGE);
  return config.database.file;
}

/** Removes a working folder; a tar extraction that failed may still be finishing a write, hence the retries. */
async function removeDir(dir: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }).catch(() => undefined);
}

async function exists(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const syncDir = (dir: string) => fsyncPath(dir, 'dir');
const syncFile = (file: string) => fsyncPath(file, 'file');

/** Every regular file under dir, as '/'-separated paths relative to root; symlinks and others are reported. */
async function walk(root: string, dir = root, found: string[] = [], odd: string[] = []) {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { files: found, odd };
    throw error;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    const rel = path.relative(root, full).split(path.sep).join('/');
    if (entry.isDirectory()) await walk(root, full, found, odd);
    else if (entry.isFile()) found.push(rel);
    else odd.push(rel);
  }
  return { files: found, odd };
}

// The heavy parts of a backup run on worker threads, so a server making a scheduled backup goes on answering
// meanwhile: the online copy, hashing, integrity_check (it reads every page) and tar+gzip (minizlib compresses
// synchronously on the thread that packs). On Linux each worker lowers its own thread's CPU priority (nice 19: the
// server's threads, and any other process, come first) and the copy and the packing pause between steps and flush
// what they wrote every few MiB, so the disk's write-back never builds up to a burst that a server's commit (an
// fsync) would wait behind. better-sqlite3 and tar are loaded there from this module's location.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const fs = require('node:fs');
const os = require('node:os');
const crypto = require('node:crypto');
const load = createRequire(workerData.from);
// Per thread on Linux (elsewhere it would lower the whole process: the server's too).
if (process.platform === 'linux') {
  try { os.setPriority(0, 19); } catch {}
}
const pause = (ms) => { if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms); };
const tasks = {
  async copy({ source, target, pagesPerStep, pauseMs, syncEveryBytes }) {
    const SQLite = load('better-sqlite3');
    const db = new SQLite(source, { readonly: true, fileMustExist: true });
    let fd;
    try {
      db.pragma('busy_timeout = 5000');
      // The snapshot: every commit before this point is in the copy, and writes after it do not restart it.
      db.exec('begin');
      db.prepare('select count(*) from sqlite_master').get();
      const pageSize = db.pragma('page_size', { simple: true });
      let unsynced = 0;
      await db.backup(target, {
        progress: () => {
          unsynced += pagesPerStep * pageSize;
          if (unsynced >= syncEveryBytes) {
            if (fd === undefined) fd = fs.openSync(target, 'r+');
            fs.fdatasyncSync(fd);
            unsynced = 0;
          }
          pause(pauseMs);
          return pagesPerStep;
        },
      });
      db.exec('commit');
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
      db.close();
    }
    // The copy keeps the WAL flag of its source; a rollback journal makes it one self-contained file.
    const copy = new SQLite(target);
    copy.pragma('journal_mode = DELETE');
    copy.close();
    return null;
  },
  check({ file }) {
    const SQLite = load('better-sqlite3');
    const db = new SQLite(file, { readonly: true, fileMustExist: true });
    try {
      const problems = db.pragma('integrity_check').map((row) => row.integrity_check).filter((line) => line !== 'ok');
      const count = (table) => db.prepare('select count(*) from ' + table).pluck().get();
      return {
        problems,
        counts: problems.length ? null : {
          brands: count('brands'), users: count('users'), leads: count('leads'), attachments: count('attachments'),
        },
      };
    } finally {
      db.close();
    }
  },
  hash({ files, pauseMs }) {
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    return files.map((file) => {
      const hash = crypto.createHash('sha256');
      const fd = fs.openSync(file, 'r');
      let bytes = 0;
      try {
        for (let n; (n = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0; ) {
          hash.update(buffer.subarray(0, n));
          bytes += n;
          if (n === buffer.length) pause(pauseMs);
        }
      } finally {
        fs.closeSync(fd);
      }
      return { bytes, sha256: hash.digest('hex') };
    });
  },
  async pack({ cwd, entries, file, pauseMs, syncEveryBytes }) {
    const tar = load('tar');
    const fd = fs.openSync(file, 'w');
    try {
      let unsynced = 0;
      // Level 1: on the bench's database 2.7 times as fast as the default (6) for 11% more bytes.
      for await (const chunk of tar.create({ gzip: { level: 1 }, cwd, portable: true }, entries)) {
        for (let at = 0; at < chunk.length; ) at += fs.writeSync(fd, chunk, at, chunk.length - at);
        unsynced += chunk.length;
        if (unsynced >= syncEveryBytes) {
          fs.fdatasyncSync(fd);
          unsynced = 0;
          pause(pauseMs);
        }
      }
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return null;
  },
};
Promise.resolve()
  .then(() => tasks[workerData.task](workerData.args))
  .then(
    (result) => parentPort.postMessage({ ok: true, result }),
    (error) => parentPort.postMessage({ ok: false, message: String((error && error.message) || error) }),
  );
`;

/** Runs one task of WORKER on its own thread and gives its result. */
function inWorker<T>(task: 'copy' | 'check' | 'hash' | 'pack', args: object): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { task, args, from: import.meta.url } });
    let answered = false;
    worker.once('message', (answer: { ok: true; result: T } | { ok: false; message: string }) => {
      answered = true;
      if (answer.ok) resolve(answer.result);
      else reject(new Error(answer.message));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the backup worker stopped (exit code ${code})`));
    });
  });
}

/** How hard a backup may use the disk: pauses between steps and how often what it wrote is flushed. */
export interface Pacing {
  /** Pages per step of the online copy (4 KiB each): small, so the server's writes interleave. */
  pagesPerStep: number;
  /** Pause after each copy step, each MiB hashed and each flush of the archive (ms). */
  pauseMs: number;
  /** Flush (fdatasync) the copy and the archive every this many bytes written. */
  syncEveryBytes: number;
}

/** What the bench measured as keeping a server's creates answering during a backup of a 1M-lead database. */
export const PACING: Pacing = { pagesPerStep: PAGES_PER_STEP, pauseMs: 2, syncEveryBytes: 8 * 1024 * 1024 };

/** integrity_check on a database file, and its counts; throws when the check finds anything. */
async function checkDatabase(file: string): Promise<Manifest['counts']> {
  const result = await inWorker<{ problems: string[]; counts: Manifest['counts'] | null }>('check', { file });
  if (result.problems.length || !result.counts) {
    throw new Error(`integrity_check failed: ${result.problems.slice(0, 5).join('; ')}`);
  }
  return result.counts;
}

/**
 * Copies the live database into `target` with the online backup API, in small steps from a read snapshot, on a
 * worker thread that pauses between steps and flushes the copy every few MiB.
 */
export async function copyDatabase(source: string, target: string, pacing: Partial<Pacing> = {}) {
  await inWorker('copy', { source, target, ...PACING, ...pacing });
}

/** Size and sha256 of each file, read on a worker thread. */
function hashFiles(files: string[], pacing: Pacing): Promise<{ bytes: number; sha256: string }[]> {
  return inWorker('hash', { files, pauseMs: pacing.pauseMs });
}

/** Links src to dest (same file system, no copy, immune to a later delete of src), or copies it. */
async function linkOrCopy(src: string, dest: string): Promise<void> {
  await fs.mkdir(path.dirname(dest), { recursive: true });
  try {
    await fs.link(src, dest);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return; // deleted since it was listed: no longer part of the data
    await fs.copyFile(src, dest);
  }
}

export interface BackupOptions {
  /** Where the archive goes; default BACKUP_DIR/lead-intake-<UTC time>.tar.gz. */
  to?: string | undefined;
  /** Pages per online-backup step, pauses, flushes (tests and the bench vary them). */
  pacing?: Partial<Pacing>;
  now?: Date;
}

/** A backup's working folder in DATA_DIR: `.backup-<random>`, holding its own lock while the backup runs. */
export const STAGING_PREFIX = '.backup-';
/** A staging folder with no lock file yet is only taken for a crash's leftover once it is this old. */
const UNLOCKED_GRACE_MS = 60_000;

/**
 * Whether a staging folder is a crashed backup's leftover: no running backup holds its lock (the OS drops a lock
 * when its process ends, however it ends), and it has a lock file or is older than a minute (a backup takes its
 * lock right after making the folder).
 */
async function isLeftOver(dir: string, now: number): Promise<boolean> {
  const stat = await fs.lstat(dir).catch(() => undefined);
  if (!stat?.isDirectory()) return false;
  const locked = await exists(path.join(dir, LOCK_FILE));
  if (!locked && now - stat.mtimeMs < UNLOCKED_GRACE_MS) return false;
  try {
    lockExclusive(dir).release();
    return true;
  } catch {
    return false; // held by a running backup (or not ours to judge)
  }
}

/**
 * Removes what crashed backups left behind: staging folders `.backup-*` in DATA_DIR that no running backup holds,
 * and partial archives (`….tar.gz.partial-.backup-*`) in BACKUP_DIR whose backup is gone. Run by every backup
 * before it starts, by the server as it starts, and by restore; returns what it removed.
 */
export async function sweepStaleBackups(config: Readonly<Config>, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await fs.readdir(config.dataDir).catch(() => [] as string[])) {
    if (!name.startsWith(STAGING_PREFIX)) continue;
    const dir = path.join(config.dataDir, name);
    if (!(await isLeftOver(dir, now))) continue;
    await removeDir(dir);
    removed.push(dir);
  }
  for (const name of await fs.readdir(config.backups.dir).catch(() => [] as string[])) {
    const match = /\.partial-(\.backup-[^/\\]+)$/.exec(name);
    if (!match || (await exists(path.join(config.dataDir, match[1]!)))) continue;
    await fs.rm(path.join(config.backups.dir, name), { force: true });
    removed.push(path.join(config.backups.dir, name));
  }
  return removed;
}

/** Makes one archive of the SQLite database and the attachments on disk. */
export async function makeBackup(
  config: Readonly<Config>,
  options: BackupOptions = {},
): Promise<BackupResult> {
  const source = sqliteFile(config);
  if (source === ':memory:' || !(await exists(source))) {
    throw new BackupUnavailableError(
      `There is no database at ${source} to back up (DATA_DIR=${config.dataDir}).`,
    );
  }
  const pacing: Pacing = { ...PACING, ...options.pacing };
  const created = options.now ?? new Date();
  const target = path.resolve(options.to ?? (await defaultArchivePath(config, created)));
  await fs.mkdir(path.dirname(target), { recursive: true });
  // Staged beside the database, so attachments on the same file system are hard links, not copies. The staging
  // folder holds its own lock (sweepStaleBackups leaves it alone while this runs); the archive's files are in
  // staging/archive.
  await fs.mkdir(config.dataDir, { recursive: true });
  const staging = await fs.mkdtemp(path.join(config.dataDir, STAGING_PREFIX));
  const root = path.join(staging, 'archive');
  const partial = `${target}.partial-${path.basename(staging)}`;
  let lock: DataDirLock | undefined;
  try {
    lock = lockShared(staging, 0);
    await sweepStaleBackups(config, created.getTime());
    const dbCopy = path.join(root, DB_ENTRY);
    await fs.mkdir(path.dirname(dbCopy), { recursive: true });
    await copyDatabase(source, dbCopy, pacing);
    const counts = await checkDatabase(dbCopy);

    const storage = config.attachments.storage;
    if (storage.kind === 'disk') {
      const { files } = await walk(storage.dir);
      let linked = 0;
      for (const rel of files) {
        if (rel.startsWith('.tmp/')) continue; // unfinished uploads
        await linkOrCopy(
          path.join(storage.dir, ...rel.split('/')),
          path.join(root, ATTACHMENTS_ENTRY, ...rel.split('/')),
        );
        // A breath every hundred files, so a folder of many thousands does not hold the disk in one go.
        if (++linked % 100 === 0) await sleep(pacing.pauseMs);
      }
    }
    const files = (await walk(root)).files.sort();
    const hashed = await hashFiles(
      files.map((rel) => path.join(root, ...rel.split('/'))),
      pacing,
    );
    const listed: ManifestFile[] = files.map((rel, i) => ({ path: rel, ...hashed[i]! }));
    const manifest: Manifest = {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      appVersion: await appVersion(),
      createdAt: created.toISOString(),
      database: {
        dialect: 'sqlite',
        file: DB_ENTRY,
        lastMigration: migrationsAppliedTo(dbCopy).at(-1) ?? null,
      },
      attachments:
        storage.kind === 'disk'
          ? { storage: 'disk', included: true }
          : {
              storage: 's3',
              included: false,
              note: `Attachments are in S3 bucket ${storage.bucket}, which is not in this archive: use the bucket's own versioning or replication.`,
            },
      counts,
      files: listed,
    };
    await fs.writeFile(path.join(root, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    const entries = [MANIFEST, 'database'];
    if (await exists(path.join(root, ATTACHMENTS_ENTRY))) entries.push(ATTACHMENTS_ENTRY);
    await inWorker('pack', { cwd: root, entries, file: partial, ...pacing });
    await fs.rename(partial, target);
    await syncDir(path.dirname(target));
    return {
      path: target,
      bytes: (await fs.stat(target)).size,
      leads: counts.leads,
      attachments: manifest.attachments.included ? counts.attachments : 0,
      createdAt: manifest.createdAt,
      attachmentsIncluded: manifest.attachments.included,
    };
  } finally {
    await fs.rm(partial, { force: true });
    lock?.release();
    await removeDir(staging);
  }
}

function parseManifest(text: string): Manifest {
  let value: Manifest;
  try {
    value = JSON.parse(text) as Manifest;
  } catch {
    throw new BackupArchiveError('its manifest.json is not valid JSON');
  }
  if (value?.format !== FORMAT) throw new BackupArchiveError('its manifest.json is not a lead-intake backup');
  if (value.formatVersion !== FORMAT_VERSION) {
    throw new BackupArchiveError(
      `it has format version ${value.formatVersion}; this version of lead-intake reads version ${FORMAT_VERSION}`,
    );
  }
  if (!Array.isArray(value.files) || !value.files.some((f) => f.path === DB_ENTRY)) {
    throw new BackupArchiveError('its manifest lists no database');
  }
  return value;
}

/** Extracts archive into dir and checks it against its manifest; returns the manifest. */
export async function extractAndVerify(archive: string, dir: string): Promise<Manifest> {
  const refused: string[] = [];
  try {
    await tar.extract({
      file: archive,
      cwd: dir,
      strict: true,
      // Only files and folders: no links, devices or anything that could point outside dir.
      filter: (entryPath, entry) => {
        const type = 'type' in entry ? entry.type : undefined;
        const ok = type === 'File' || type === 'Directory';
        if (!ok) refused.push(entryPath);
        return ok;
      },
    });
  } catch (error) {
    throw new BackupArchiveError(
      `it cannot be read to the end (${error instanceof Error ? error.message : String(error)}); it may be truncated or not a tar.gz`,
    );
  }
  if (refused.length)
    throw new BackupArchiveError(`it holds entries that are not files: ${refused.join(', ')}`);
  let manifestText: string;
  try {
    manifestText = await fs.readFile(path.join(dir, MANIFEST), 'utf8');
  } catch {
    throw new BackupArchiveError('it has no manifest.json');
  }
  const manifest = parseManifest(manifestText);
  const { files, odd } = await walk(dir);
  if (odd.length) throw new BackupArchiveError(`it holds entries that are not files: ${odd.join(', ')}`);
  const present = new Set(files.filter((f) => f !== MANIFEST));
  for (const file of manifest.files) {
    if (typeof file.path !== 'string' || file.path.split('/').includes('..') || path.isAbsolute(file.path)) {
      throw new BackupArchiveError(`its manifest names a bad path: ${JSON.stringify(file.path)}`);
    }
    if (!present.delete(file.path)) throw new BackupArchiveError(`${file.path} is missing from it`);
    const full = path.join(dir, ...file.path.split('/'));
    const size = (await fs.stat(full)).size;
    if (size !== file.bytes) {
      throw new BackupArchiveError(`${file.path} has ${size} bytes where the manifest says ${file.bytes}`);
    }
    if ((await sha256(full)) !== file.sha256) {
      throw new BackupArchiveError(`${file.path} does not match its checksum in the manifest`);
    }
  }
  if (present.size) {
    throw new BackupArchiveError(`it holds files its manifest does not list: ${[...present].join(', ')}`);
  }
  try {
    await checkDatabase(path.join(dir, ...DB_ENTRY.split('/')));
  } catch (error) {
    throw new BackupArchiveError(
      `its database fails the integrity check (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  return manifest;
}

interface Journal {
  /** Renames, in order; each is done when its source is gone and its target exists. */
  moves: [from: string, to: string][];
  cleanup: string;
}

async function runMoves(dataDir: string, journal: Journal): Promise<void> {
  for (const [from, to] of journal.moves) {
    if (!(await exists(from))) continue;
    if (await exists(to)) continue;
    await fs.mkdir(path.dirname(to), { recursive: true });
    await fs.rename(from, to);
  }
  await syncDir(dataDir);
  await fs.rm(path.join(dataDir, RESTORE_JOURNAL), { force: true });
  await syncDir(dataDir);
  await removeDir(journal.cleanup);
}

/**
 * Finishes a restore that a crash interrupted after its files were checked (the journal is only written then):
 * the remaining renames are made, so the folder never stays a mix of old and new. Call with the exclusive lock or
 * before anything opens the database.
 */
export async function finishInterruptedRestore(dataDir: string): Promise<boolean> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dataDir, RESTORE_JOURNAL), 'utf8');
  } catch {
    return false;
  }
  await runMoves(dataDir, JSON.parse(text) as Journal);
  return true;
}

/**
 * Puts the archive in place of the database and the attachments on disk. The caller holds the exclusive DATA_DIR
 * lock (no server runs). Throws BackupArchiveError, changing nothing, when the archive is not a complete, intact
 * backup.
 */
export async function restoreBackup(
  config: Readonly<Config>,
  archive: string,
  now = new Date(),
): Promise<RestoreResult> {
  const dbFile = sqliteFile(config);
  const file = path.resolve(archive);
  const stat = await fs.stat(file).catch(() => undefined);
  if (!stat?.isFile()) throw new BackupArchiveError(`${file} is not a file`);
  await fs.mkdir(config.dataDir, { recursive: true });
  await finishInterruptedRestore(config.dataDir);
  // With the exclusive lock no backup and no other restore runs: their working folders are leftovers.
  await sweepStaleBackups(config, now.getTime());
  for (const name of await fs.readdir(config.dataDir)) {
    if (name.startsWith(RESTORE_PREFIX)) await removeDir(path.join(config.dataDir, name));
  }
  const work = await fs.mkdtemp(path.join(config.dataDir, RESTORE_PREFIX));
  let journaled = false;
  try {
    const manifest = await extractAndVerify(file, work);
    const known = new Set(migrationNames());
    const unknown = migrationsAppliedTo(path.join(work, ...DB_ENTRY.split('/'))).filter((m) => !known.has(m));
    if (unknown.length) throw new BackupTooNewError(String(manifest.appVersion), await appVersion(), unknown);
    const storage = config.attachments.storage;
    const before = path.join(config.dataDir, `before-restore-${stamp(now)}`);
    const moves: [string, string][] = [];
    // What is there goes to before/ first; then the new files come in.
    for (const suffix of ['', '-wal', '-shm', '-journal']) {
      moves.push([`${dbFile}${suffix}`, path.join(before, `${path.basename(dbFile)}${suffix}`)]);
    }
    const newAttachments = path.join(work, ATTACHMENTS_ENTRY);
    if (storage.kind === 'disk' && manifest.attachments.included) {
      moves.push([storage.dir, path.join(before, 'attachments')]);
    }
    moves.push([path.join(work, ...DB_ENTRY.split('/')), dbFile]);
    if (storage.kind === 'disk' && manifest.attachments.included) {
      await fs.mkdir(newAttachments, { recursive: true });
      moves.push([newAttachments, storage.dir]);
    }
    await fs.mkdir(before, { recursive: true });
    await fs.mkdir(path.dirname(dbFile), { recursive: true });
    const journal: Journal = { moves, cleanup: work };
    const journalFile = path.join(config.dataDir, RESTORE_JOURNAL);
    await fs.writeFile(`${journalFile}.tmp`, JSON.stringify(journal));
    await syncFile(`${journalFile}.tmp`);
    await fs.rename(`${journalFile}.tmp`, journalFile);
    await syncDir(config.dataDir);
    journaled = true;
    await runMoves(config.dataDir, journal);
    return {
      path: file,
      before,
      leads: manifest.counts.leads,
      attachments: manifest.attachments.included ? manifest.counts.attachments : 0,
      createdAt: manifest.createdAt,
      attachmentsIncluded: manifest.attachments.included,
    };
  } finally {
    // Once journaled, the new files in work/ are what the journal still has to move in: kept for the next try.
    if (!journaled || !(await exists(path.join(config.dataDir, RESTORE_JOURNAL)))) await removeDir(work);
  }
}
