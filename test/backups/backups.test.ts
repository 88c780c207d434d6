// Backups in process, on real SQLite files in temporary DATA_DIRs: an archive made under a write load and put back
// into a fresh DATA_DIR holds every acknowledged write and byte-identical attachments; damaged archives change
// nothing; the schedule rotates only its own archives and keeps its status across a restart; /metrics and
// Settings > Brand show the last success (and a failure).
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { afterEach, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import {
  appVersion,
  BackupArchiveError,
  BackupTooNewError,
  makeBackup,
  restoreBackup,
  STAGING_PREFIX,
  sweepStaleBackups,
} from '../../src/platform/backup/archive.js';
import { lockShared } from '../../src/platform/backup/lock.js';
import { BackupScheduler, FAILURE_FILE, listArchives } from '../../src/platform/backup/schedule.js';
import { type Config, loadConfig } from '../../src/platform/config.js';
import { migrationNames } from '../../src/platform/db/migration-files.js';
import { DiskStorage } from '../../src/platform/storage/disk.js';
import { apiClient } from '../api.js';
import { addUser, brandWithKeyAndOwner, signedIn, textOf } from '../dashboard/helpers.js';
import { dropSchema, testConfig, validLead } from '../helpers.js';
import { FUTURE_MIGRATION, futureArchive } from './future-archive.js';
import { leadIdsIn } from './lead-ids.js';

const dirs: string[] = [];
const apps: App[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

async function tempDir(prefix = 'lead-intake-backup-'): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** The test config on a real DATA_DIR: its database file, attachments folder and backups folder. */
function configOn(dataDir: string, env: Record<string, string> = {}): Config {
  const loaded = loadConfig({ DATA_DIR: dataDir, ...env });
  return testConfig('sqlite', {
    dataDir: loaded.dataDir,
    database: loaded.database,
    attachments: loaded.attachments,
    backups: loaded.backups,
  });
}

async function appOn(config: Config, backupSchedule = false): Promise<App> {
  const app = await buildApp(config, { logger: false, defaultMetrics: false, backupSchedule });
  apps.push(app);
  await app.ready();
  return app;
}

/** Every file under dir with its sha256, by relative path. */
async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (at: string) => {
    for (const entry of await fs.readdir(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) await walk(full);
      else
        out[path.relative(dir, full)] = createHash('sha256')
          .update(await fs.readFile(full))
          .digest('hex');
    }
  };
  await walk(dir);
  return out;
}

/** Unpacks an archive, lets `change` alter the files, and packs it again (with or without some entries). */
async function repack(archive: string, out: string, change: (dir: string) => Promise<void>): Promise<string> {
  const dir = await tempDir('lead-intake-repack-');
  await tar.extract({ file: archive, cwd: dir });
  await change(dir);
  const entries = await fs.readdir(dir);
  await tar.create({ gzip: true, file: out, cwd: dir, portable: true }, entries);
  return out;
}

describe('backup and restore (SQLite files)', () => {
  it('a backup made while creates keep coming holds every write acknowledged before it; a restore brings them back', async () => {
    const dataDir = await tempDir();
    const config = configOn(dataDir);
    const app = await appOn(config);
    const { key } = await brandWithKeyAndOwner(app);
    const api = apiClient(app, key);
    const create = async () => {
      const res = await api.post('/v1/leads', validLead());
      expect(res.statusCode).toBe(201);
      return res.json().id as string;
    };
    // Enough pages that the online copy takes many steps.
    for (let i = 0; i < 300; i++) await create();
    const acknowledged = new Set<string>();
    let stop = false;
    let duringBackup = 0;
    let backingUp = false;
    const load = (async () => {
      while (!stop) {
        const id = await create();
        acknowledged.add(id);
        if (backingUp) duringBackup++;
      }
    })();
    while (acknowledged.size < 20) await new Promise((r) => setTimeout(r, 5));
    const before = new Set(acknowledged);
    backingUp = true;
    // One page per step: the copy yields to the event loop between pages, so creates go on meanwhile.
    const result = await makeBackup(config, { pacing: { pagesPerStep: 1, pauseMs: 0 } });
    backingUp = false;
    stop = true;
    await load;
    expect(duringBackup).toBeGreaterThan(0);
    expect(result.path).toMatch(/backups\/lead-intake-\d{8}T\d{6}Z\.tar\.gz$/);
    expect(result.bytes).toBe((await fs.stat(result.path)).size);
    expect(result.leads).toBeGreaterThanOrEqual(300 + before.size);

    const fresh = await tempDir();
    const restored = await restoreBackup(configOn(fresh), result.path);
    const ids = leadIdsIn(path.join(fresh, 'lead-intake.sqlite'));
    for (const id of before) expect(ids.has(id)).toBe(true);
    expect(ids.size).toBe(result.leads);
    expect(restored.leads).toBe(result.leads);

    // The restored DATA_DIR serves: the app opens it and lists the leads.
    const again = await appOn(configOn(fresh));
    const list = await apiClient(again, key).read('/v1/leads?limit=1');
    expect(list.data).toHaveLength(1);
  }, 120_000);

  it('attachments come back byte for byte, and what was replaced is kept in before-restore-<time>/', async () => {
    const source = await tempDir();
    const config = configOn(source);
    const app = await appOn(config);
    await brandWithKeyAndOwner(app);
    const storage = new DiskStorage(path.join(source, 'attachments'));
    const files: Record<string, Buffer> = {
      'brd_1/lead_1/photo.jpg': randomBytes(200_000),
      'brd_1/lead_2/plan.pdf': randomBytes(3000),
      'brd_2/empty': Buffer.alloc(0),
    };
    for (const [k, bytes] of Object.entries(files)) await storage.put(k, bytes);
    const { path: archive, attachments } = await makeBackup(config);
    expect(attachments).toBe(0); // counted from the attachments table: these files belong to no attachment row

    const target = await tempDir();
    const targetConfig = configOn(target);
    await appOn(targetConfig).then((a) => brandWithKeyAndOwner(a));
    await new DiskStorage(path.join(target, 'attachments')).put('old/file', Buffer.from('old bytes'));
    await Promise.all(apps.splice(0).map((a) => a.close()));
    const oldDb = await fs.readFile(path.join(target, 'lead-intake.sqlite'));

    const result = await restoreBackup(targetConfig, archive, new Date('2026-11-25T10:00:00.000Z'));
    expect(result.before).toBe(path.join(target, 'before-restore-20261125T100000000Z'));
    const restored = await fingerprint(path.join(target, 'attachments'));
    const expected = Object.fromEntries(
      Object.entries(files).map(([k, b]) => [
        k.split('/').join(path.sep),
        createHash('sha256').update(b).digest('hex'),
      ]),
    );
    expect(restored).toEqual(expected);
    expect(await fs.readFile(path.join(result.before, 'attachments', 'old', 'file'), 'utf8')).toBe(
      'old bytes',
    );
    expect((await fs.readFile(path.join(result.before, 'lead-intake.sqlite'))).equals(oldDb)).toBe(true);
    // No working folders or journal left behind.
    const left = (await fs.readdir(target)).filter((n) => n.startsWith('.') || n.includes('journal'));
    expect(left).toEqual([]);
  }, 120_000);

  it('refuses a truncated archive, a tampered file, a missing manifest and a missing file, changing nothing', async () => {
    const source = await tempDir();
    const config = configOn(source);
    await brandWithKeyAndOwner(await appOn(config));
    await new DiskStorage(path.join(source, 'attachments')).put('a/b', randomBytes(5000));
    const { path: archive } = await makeBackup(config);
    const bytes = await fs.readFile(archive);

    const target = await tempDir();
    const targetConfig = configOn(target);
    await brandWithKeyAndOwner(await appOn(targetConfig));
    await new DiskStorage(path.join(target, 'attachments')).put('x/y', Buffer.from('keep me'));
    await Promise.all(apps.splice(0).map((a) => a.close()));
    const before = await fingerprint(target);

    const work = await tempDir('lead-intake-bad-');
    const truncated = path.join(work, 'truncated.tar.gz');
    await fs.writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const tampered = await repack(archive, path.join(work, 'tampered.tar.gz'), async (dir) => {
      const file = path.join(dir, 'attachments', 'a', 'b');
      const data = await fs.readFile(file);
      data[100] = data[100]! ^ 0xff;
      await fs.writeFile(file, data);
    });
    const noManifest = await repack(archive, path.join(work, 'no-manifest.tar.gz'), (dir) =>
      fs.rm(path.join(dir, 'manifest.json')),
    );
    const missingFile = await repack(archive, path.join(work, 'missing.tar.gz'), (dir) =>
      fs.rm(path.join(dir, 'attachments'), { recursive: true }),
    );
    const extraFile = await repack(archive, path.join(work, 'extra.tar.gz'), (dir) =>
      fs.writeFile(path.join(dir, 'database', 'evil.sqlite'), 'x'),
    );
    const notAnArchive = path.join(work, 'notes.txt');
    await fs.writeFile(notAnArchive, 'hello');

    const cases: [string, RegExp][] = [
      [truncated, /truncated|cannot be read/],
      [tampered, /attachments\/a\/b does not match its checksum/],
      [noManifest, /no manifest\.json/],
      [missingFile, /attachments\/a\/b is missing/],
      [extraFile, /does not list: database\/evil\.sqlite/],
      [notAnArchive, /cannot be read/],
      [path.join(work, 'nothing-here.tar.gz'), /is not a file/],
    ];
    for (const [file, reason] of cases) {
      const error = await restoreBackup(targetConfig, file).catch((e: unknown) => e);
      expect(error, file).toBeInstanceOf(BackupArchiveError);
      expect((error as Error).message, file).toMatch(reason);
      expect(await fingerprint(target), file).toEqual(before);
    }
    // The intact archive does restore: the refusals were about the damage.
    await restoreBackup(targetConfig, archive);
    expect(await fs.readFile(path.join(target, 'attachments', 'a', 'b'))).toHaveLength(5000);
  }, 120_000);
});

describe('archives of a newer version', () => {
  it('the manifest records the last migration; a restore refuses one whose schema is newer, changing nothing', async () => {
    const source = await tempDir();
    const config = configOn(source);
    await brandWithKeyAndOwner(await appOn(config));
    await Promise.all(apps.splice(0).map((a) => a.close()));
    const { path: archive } = await makeBackup(config);
    const manifestDir = await tempDir('lead-intake-manifest-');
    await tar.extract({ file: archive, cwd: manifestDir });
    const manifest = JSON.parse(await fs.readFile(path.join(manifestDir, 'manifest.json'), 'utf8'));
    expect(manifest.database.lastMigration).toBe(migrationNames().at(-1));
    expect(manifest.appVersion).toBe(await appVersion());

    const future = await futureArchive(archive, path.join(await tempDir(), 'future.tar.gz'));
    const target = await tempDir();
    const targetConfig = configOn(target);
    await brandWithKeyAndOwner(await appOn(targetConfig));
    await Promise.all(apps.splice(0).map((a) => a.close()));
    const before = await fingerprint(target);
    const error = await restoreBackup(targetConfig, future).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackupTooNewError);
    expect((error as Error).message).toBe(
      `it was made by lead-intake 99.0.0, whose database has changes this version (${await appVersion()}) does not know (migration ${FUTURE_MIGRATION}); restore it with lead-intake 99.0.0 or newer`,
    );
    expect(await fingerprint(target)).toEqual(before);
    // The archive it came from is of this version: it restores.
    await restoreBackup(targetConfig, archive);
  }, 120_000);
});

describe('what interrupted backups leave behind', () => {
  it('the next backup removes staging folders no running backup holds and their partial archives, nothing else', async () => {
    const dataDir = await tempDir();
    const config = configOn(dataDir);
    await brandWithKeyAndOwner(await appOn(config));
    const backups = config.backups.dir;
    await fs.mkdir(backups, { recursive: true });
    const staged = async (name: string, options: { lock?: boolean; ageMs?: number } = {}) => {
      const dir = path.join(dataDir, `${STAGING_PREFIX}${name}`);
      await fs.mkdir(path.join(dir, 'archive', 'database'), { recursive: true });
      await fs.writeFile(path.join(dir, 'archive', 'database', 'lead-intake.sqlite'), 'half a copy');
      if (options.lock) lockShared(dir).release(); // a lock file its (dead) backup held
      if (options.ageMs) {
        const then = new Date(Date.now() - options.ageMs);
        await fs.utimes(dir, then, then);
      }
      return dir;
    };
    const crashed = await staged('crashed', { lock: true });
    const crashedEarly = await staged('early', { ageMs: 5 * 60_000 }); // died before it took its lock
    const starting = await staged('starting'); // just made by a backup that is about to take its lock
    const running = await staged('running', { lock: true });
    const held = lockShared(running); // a backup in progress (in another process, as far as the lock tells)
    const partials = {
      crashed: path.join(backups, `lead-intake-20261101T000000Z.tar.gz.partial-${path.basename(crashed)}`),
      running: path.join(backups, `lead-intake-20261102T000000Z.tar.gz.partial-${path.basename(running)}`),
    };
    for (const file of Object.values(partials)) await fs.writeFile(file, 'partial');
    const others = [
      path.join(dataDir, 'backup-notes'),
      path.join(backups, 'lead-intake-20261101T000000Z.tar.gz'),
    ];
    for (const file of others) await fs.writeFile(file, 'mine');
    try {
      const result = await makeBackup(config);
      const left = await fs.readdir(dataDir);
      expect(left).not.toContain(path.basename(crashed));
      expect(left).not.toContain(path.basename(crashedEarly));
      expect(left).toContain(path.basename(starting));
      expect(left).toContain(path.basename(running));
      // Its own staging folder is gone too, once it is done.
      expect(left.filter((n) => n.startsWith(STAGING_PREFIX)).sort()).toEqual(
        [path.basename(running), path.basename(starting)].sort(),
      );
      const archives = await fs.readdir(backups);
      expect(archives).not.toContain(path.basename(partials.crashed));
      expect(archives).toContain(path.basename(partials.running));
      expect(archives).toContain(path.basename(result.path));
      for (const file of others) expect(await fs.readFile(file, 'utf8')).toBe('mine');
    } finally {
      held.release();
    }
    // Once its backup is gone, the next sweep (the server's start, or the next backup) takes the rest.
    const then = new Date(Date.now() - 5 * 60_000);
    await fs.utimes(starting, then, then);
    const removed = await sweepStaleBackups(config);
    expect(removed.sort()).toEqual([partials.running, running, starting].sort());
    expect((await fs.readdir(dataDir)).filter((n) => n.startsWith(STAGING_PREFIX))).toEqual([]);
  }, 120_000);

  it('a scheduled backup sweeps too', async () => {
    const dataDir = await tempDir();
    const config = configOn(dataDir);
    await brandWithKeyAndOwner(await appOn(config));
    const crashed = path.join(dataDir, `${STAGING_PREFIX}crashed`);
    await fs.mkdir(crashed);
    lockShared(crashed).release();
    const errors: unknown[] = [];
    const scheduler = new BackupScheduler(config, {
      log: { info: () => {}, error: (obj: object) => errors.push(obj) },
    });
    expect(await scheduler.runOnce()).not.toBeNull();
    expect(errors).toEqual([]);
    expect((await fs.readdir(dataDir)).filter((n) => n.startsWith(STAGING_PREFIX))).toEqual([]);
  }, 60_000);
});

describe('scheduled backups', () => {
  const silent = () => {
    const errors: unknown[] = [];
    return { errors, log: { info: () => {}, error: (obj: object) => errors.push(obj) } };
  };

  it('makes a backup every interval and keeps the newest BACKUP_KEEP of its own archives only', async () => {
    const dataDir = await tempDir();
    const config = configOn(dataDir, { BACKUP_KEEP: '2' });
    await brandWithKeyAndOwner(await appOn(config));
    const backups = config.backups.dir;
    await fs.mkdir(backups, { recursive: true });
    // Files that are not the service's archives: never deleted.
    const others = ['notes.txt', 'lead-intake-manual.tar.gz', 'lead-intake-20200101T000000Z.tar.gz.sha256'];
    for (const name of others) await fs.writeFile(path.join(backups, name), 'mine');
    // An old archive of the service's own: rotated away.
    await fs.writeFile(path.join(backups, 'lead-intake-20200101T000000Z.tar.gz'), 'old');

    const { log, errors } = silent();
    const scheduler = new BackupScheduler(config, { log, intervalMs: 150, firstDelayMs: 0 });
    scheduler.start();
    try {
      const deadline = Date.now() + 20_000;
      let made = 0;
      const seen = new Set<string>();
      while (made < 4 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        for (const a of await listArchives(backups))
          if (!a.name.startsWith('lead-intake-2020')) seen.add(a.name);
        made = seen.size;
      }
      expect(made).toBeGreaterThanOrEqual(4);
    } finally {
      await scheduler.stop();
    }
    expect(errors).toEqual([]);
    const names = await fs.readdir(backups);
    for (const name of others) expect(names).toContain(name);
    const archives = await listArchives(backups);
    expect(archives).toHaveLength(2);
    expect(archives.map((a) => a.name)).not.toContain('lead-intake-20200101T000000Z.tar.gz');
    const status = await scheduler.status();
    expect(status.lastSuccess?.path).toBe(path.join(backups, archives[0]!.name));
    expect(status.lastFailure).toBeNull();
  }, 120_000);

  it('logs a failure at error, keeps it across a restart, and the next success clears it', async () => {
    const dataDir = await tempDir();
    const config = configOn(dataDir);
    // No database file yet: nothing to back up.
    const { log, errors } = silent();
    const first = new BackupScheduler(config, { log });
    expect(await first.runOnce()).toBeNull();
    expect(errors).toHaveLength(1);
    expect((await first.status()).lastFailure?.message).toMatch(/no database/);
    expect(first.current.failures).toBe(1);

    const restarted = new BackupScheduler(config, silent());
    expect((await restarted.status()).lastFailure?.message).toMatch(/no database/);

    await brandWithKeyAndOwner(await appOn(config));
    expect(await restarted.runOnce()).not.toBeNull();
    const status = await restarted.status();
    expect(status.lastFailure).toBeNull();
    expect(status.lastSuccess).not.toBeNull();
    await expect(fs.stat(path.join(config.backups.dir, FAILURE_FILE))).rejects.toThrow();
  });

  it('is off with BACKUP_INTERVAL_MINUTES=0, with PostgreSQL and with an in-memory database', () => {
    const log = silent().log;
    expect(new BackupScheduler(loadConfig({ BACKUP_INTERVAL_MINUTES: '0' }), { log }).disabled).toBe('off');
    expect(
      new BackupScheduler(loadConfig({ DATABASE_URL: 'postgres://u@127.0.0.1/x' }), { log }).disabled,
    ).toBe('postgres');
    expect(new BackupScheduler(testConfig('sqlite'), { log }).disabled).toBe('memory');
  });
});

describe('the last backup on /metrics and Settings > Brand', () => {
  it('exports lead_intake_backup_last_success_timestamp_seconds and its size, and Settings shows it', async () => {
    const dataDir = await tempDir();
    const config = configOn(dataDir);
    const before = await appOn(config);
    const { brandId } = await brandWithKeyAndOwner(before);
    const none = await before.inject({ method: 'GET', url: '/metrics' });
    expect(none.body).toMatch(/^lead_intake_backup_last_success_timestamp_seconds 0$/m);
    const admin0 = await signedIn(before, 'owner@acme.example');
    expect(textOf((await admin0.get('/dashboard/settings/brand')).body)).toContain(
      'No backup has been made yet.',
    );

    const made = await makeBackup(config, { now: new Date('2026-11-20T08:30:00.000Z') });
    // A restart reads the newest archive in BACKUP_DIR.
    await Promise.all(apps.splice(0).map((a) => a.close()));
    const app = await appOn(config);
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(
      new RegExp(
        `^lead_intake_backup_last_success_timestamp_seconds ${Date.parse(made.createdAt) / 1000 - 0}$`,
        'm',
      ),
    );
    expect(metrics).toMatch(new RegExp(`^lead_intake_backup_last_size_bytes ${made.bytes}$`, 'm'));
    expect(metrics).toMatch(/^lead_intake_backup_failures_total 0$/m);

    const admin = await signedIn(app, 'owner@acme.example');
    const page = textOf((await admin.get('/dashboard/settings/brand')).body);
    expect(page).toContain('Backups');
    // Europe/Amsterdam: 09:30 on the 20th.
    expect(page).toMatch(/Last backup: [^.]*20 Nov 2026, 09:30, \d+ KB\./);
    expect(page).toContain(`every 24 hours into ${config.backups.dir}; the newest 7 are kept`);

    // A failure since is shown beside it, in Dutch for a Dutch user.
    await fs.writeFile(
      path.join(config.backups.dir, FAILURE_FILE),
      JSON.stringify({ at: new Date().toISOString(), message: 'disk full' }),
    );
    await addUser(app, brandId, 'baas@acme.example', 'owner');
    await app.deps.database.db
      .updateTable('users')
      .set({ language: 'nl' })
      .where('email', '=', 'baas@acme.example')
      .execute();
    const dutch = await signedIn(app, 'baas@acme.example');
    const nl = textOf((await dutch.get('/dashboard/settings/brand')).body);
    expect(nl).toContain('Laatste back-up:');
    expect(nl).toMatch(/De laatste back-up is mislukt \([^)]*\): disk full/);
  }, 120_000);
});

describe.runIf(process.env.TEST_DATABASE_URL)('backups with PostgreSQL', () => {
  it('there is no schedule, no backup metric, and Settings says PostgreSQL’s tools make the backups', async () => {
    const app = await buildApp(testConfig('postgres'), { logger: false, defaultMetrics: false });
    try {
      await app.ready();
      expect(app.deps.backups.disabled).toBe('postgres');
      await brandWithKeyAndOwner(app);
      const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).not.toContain('lead_intake_backup_');
      const admin = await signedIn(app, 'owner@acme.example');
      const page = textOf((await admin.get('/dashboard/settings/brand')).body);
      expect(page).toContain(
        'The data is kept in PostgreSQL, which is backed up with its own tools (pg_dump, or point-in-time recovery), not by lead-intake.',
      );
      expect(page).not.toContain('Last backup');
    } finally {
      await dropSchema(app);
      await app.close();
    }
  });
});
