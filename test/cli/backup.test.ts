// lead-intake backup and restore as real processes: a backup taken from a running server under a steady create
// load, restored into a fresh DATA_DIR; restore refused while the server runs (and allowed once it is gone, even
// killed with SIGKILL); a damaged archive refused; PostgreSQL pointed at its own tools.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUTURE_MIGRATION, futureArchive } from '../backups/future-archive.js';
import { leadIdsIn } from '../backups/lead-ids.js';
import { validLead } from '../helpers.js';
import { type ServerProcess, startServer } from '../integration/server-process.js';
import { baseEnv, json, root, run as runCli } from './run.js';

/** A backup or restore of a whole folder may take a while on a loaded machine: a minute before it is stopped. */
const run = (args: string[], env: Record<string, string>) => runCli(args, env, '', 60_000);

/** Every file under dir (but the lock file) with its sha256, by relative path. */
function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
  }
  return out;
}

/**
 * The same for a folder a server is running on: its database files change under it (checkpoints; readers write the
 * -shm index), so those are known by their inode (a restore would put other files in their place) and every other
 * file by its bytes.
 */
function liveFingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, full)] = /\.sqlite(?:-wal|-shm|-journal)?$/.test(entry.name)
      ? `inode ${statSync(full).ino}`
      : createHash('sha256').update(readFileSync(full)).digest('hex');
  }
  return out;
}

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'lead-intake-cli-backup-'));
  dirs.push(dir);
  return dir;
}

beforeAll(() => {
  if (!existsSync(path.join(root, 'dist', 'cli', 'backup.js'))) {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  }
}, 180_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('lead-intake backup and restore with a running server (SQLite)', () => {
  let server: ServerProcess | undefined;
  afterAll(async () => server?.kill());

  it('backs up under load, refuses to restore under the server, restores into a fresh DATA_DIR', async () => {
    const dataDir = tempDir();
    const env = baseEnv(dataDir);
    json(await run(['brands', 'create', '--name', 'Acme Plumbing', '--json'], env));
    const { key } = json(await run(['keys', 'create', '--name', 'Site', '--scopes', 'full', '--json'], env));
    server = await startServer({ DATA_DIR: dataDir, RATE_LIMIT_WRITES_PER_MINUTE: '1000000' });
    const url = server.url;
    const create = async (): Promise<string> => {
      const res = await fetch(`${url}/v1/leads`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(validLead()),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    };
    for (let i = 0; i < 200; i++) await create();

    const acknowledged = new Set<string>();
    let stop = false;
    let phase: 'before' | 'during' | 'after' = 'before';
    let createdDuring = 0;
    const worker = async () => {
      while (!stop) {
        const id = await create();
        acknowledged.add(id);
        if (phase === 'during') createdDuring++;
      }
    };
    const load = Promise.all([worker(), worker()]);
    while (acknowledged.size < 30) await new Promise((r) => setTimeout(r, 10));
    const before = new Set(acknowledged);
    phase = 'during';
    const backup = json(await run(['backup', '--json'], env));
    phase = 'after';
    stop = true;
    await load;
    expect(Object.keys(backup).sort()).toEqual(['attachments', 'bytes', 'createdAt', 'leads', 'path']);
    expect(backup.path).toMatch(new RegExp(`^${dataDir}/backups/lead-intake-\\d{8}T\\d{6}Z\\.tar\\.gz$`));
    expect(backup.bytes).toBe(statSync(backup.path).size);
    expect(backup.leads).toBeGreaterThanOrEqual(200 + before.size);
    // The server kept taking creates while the copy was made.
    expect(createdDuring).toBeGreaterThan(0);

    // Restore on the live DATA_DIR: refused, nothing changed.
    await new Promise((r) => setTimeout(r, 300));
    const live = liveFingerprint(dataDir);
    const refused = await run(['restore', backup.path], env);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      new RegExp(`^Error: Not restored: a server is running on DATA_DIR \\(${dataDir}\\).*stop it first`),
    );
    expect(refused.stderr).toMatch(/Nothing was changed\./);
    expect(liveFingerprint(dataDir)).toEqual(live);

    // Into a fresh DATA_DIR: every create acknowledged before the backup started is there.
    const fresh = tempDir();
    const restored = json(await run(['restore', backup.path, '--json'], baseEnv(fresh)));
    expect(restored).toMatchObject({ path: backup.path, leads: backup.leads, createdAt: backup.createdAt });
    expect(restored.before).toMatch(new RegExp(`^${fresh}/before-restore-\\d{8}T\\d{9}Z$`));
    const ids = leadIdsIn(path.join(fresh, 'lead-intake.sqlite'));
    expect(ids.size).toBe(backup.leads);
    for (const id of before) expect(ids.has(id)).toBe(true);

    // The restored copy serves: a server on it reads a lead with the key from the backup.
    const second = await startServer({ DATA_DIR: fresh });
    try {
      const [id] = [...before];
      const res = await fetch(`${second.url}/v1/leads/${id}`, { headers: { 'x-api-key': key } });
      expect(res.status).toBe(200);
    } finally {
      await second.stop();
    }

    // A server that dies without cleaning up leaves no lock behind: the OS drops it.
    await server.kill();
    server = undefined;
    const after = await run(['restore', backup.path], env);
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(/^Restored the backup of .* into .*: \d+ lead\(s\) and 0 attachment\(s\)\./);
    expect(leadIdsIn(path.join(dataDir, 'lead-intake.sqlite')).size).toBe(backup.leads);
  }, 120_000);

  it('refuses a truncated archive and a tampered one with exit 1, changing nothing', async () => {
    const dataDir = tempDir();
    const env = baseEnv(dataDir);
    json(await run(['brands', 'create', '--name', 'Acme Plumbing', '--json'], env));
    const archive = path.join(tempDir(), 'copy.tar.gz');
    const made = json(await run(['backup', '--to', archive, '--json'], env));
    expect(made.path).toBe(archive);
    const bytes = readFileSync(archive);
    const truncated = `${archive}.truncated.tar.gz`;
    writeFileSync(truncated, bytes.subarray(0, bytes.length - 200));
    const garbled = `${archive}.garbled.tar.gz`;
    const copy = Buffer.from(bytes);
    copy[Math.floor(copy.length / 2)] = copy[Math.floor(copy.length / 2)]! ^ 0xff;
    writeFileSync(garbled, copy);
    const before = fingerprint(dataDir);
    for (const file of [truncated, garbled]) {
      const result = await run(['restore', file], env);
      expect(result.code, file).toBe(1);
      expect(result.stderr, file).toMatch(/^Error: Not restored: .* is not a complete, intact backup: /);
      expect(fingerprint(dataDir), file).toEqual(before);
    }
    const missing = await run(['restore'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Say which backup to restore/);
    const stray = await run(['backup', 'somewhere.tar.gz'], env);
    expect(stray.code).toBe(1);
    expect(stray.stderr).toMatch(/give the file with --to/);
    const help = await run(['backup', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: lead-intake backup \[--to FILE\] \[--json\]/);
    expect((await run(['help', 'restore'], env)).stdout).toMatch(/Usage: lead-intake restore FILE/);
  }, 120_000);
});

describe('what a newer version made, and what a crash left', () => {
  it('refuses to restore an archive of a newer schema with exit 1, naming both versions, changing nothing', async () => {
    const dataDir = tempDir();
    const env = baseEnv(dataDir);
    json(await run(['brands', 'create', '--name', 'Acme Plumbing', '--json'], env));
    const archive = path.join(tempDir(), 'copy.tar.gz');
    json(await run(['backup', '--to', archive, '--json'], env));
    const future = await futureArchive(archive, path.join(tempDir(), 'future.tar.gz'), '3.1.0');
    const version = (await run(['--version'], env)).stdout.trim();
    const before = fingerprint(dataDir);
    const result = await run(['restore', future], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `Error: Not restored: ${future}: it was made by lead-intake 3.1.0, whose database has changes this version (${version}) does not know (migration ${FUTURE_MIGRATION}); restore it with lead-intake 3.1.0 or newer. Nothing was changed.\n`,
    );
    expect(fingerprint(dataDir)).toEqual(before);
  }, 120_000);

  it('a starting server removes the staging folders and partial archives of crashed backups', async () => {
    const dataDir = tempDir();
    const env = baseEnv(dataDir);
    json(await run(['brands', 'create', '--name', 'Acme Plumbing', '--json'], env));
    // What a backup killed in the middle leaves: its staging folder (with the lock file it held) and a partial archive.
    const staging = path.join(dataDir, '.backup-Kc1v9Q');
    mkdirSync(path.join(staging, 'archive', 'database'), { recursive: true });
    writeFileSync(path.join(staging, 'archive', 'database', 'lead-intake.sqlite'), 'half a copy');
    writeFileSync(path.join(staging, 'lead-intake.lock'), '');
    mkdirSync(path.join(dataDir, 'backups'));
    const partial = path.join(
      dataDir,
      'backups',
      'lead-intake-20261127T020000Z.tar.gz.partial-.backup-Kc1v9Q',
    );
    writeFileSync(partial, 'partial');
    const kept = path.join(dataDir, 'backups', 'lead-intake-20261126T020000Z.tar.gz');
    writeFileSync(kept, 'an archive');
    const server = await startServer({ DATA_DIR: dataDir });
    try {
      expect(existsSync(staging)).toBe(false);
      expect(existsSync(partial)).toBe(false);
      expect(readFileSync(kept, 'utf8')).toBe('an archive');
      expect(server.output()).toMatch(/removed what interrupted backups left behind/);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe.runIf(process.env.TEST_DATABASE_URL)('lead-intake backup and restore with PostgreSQL', () => {
  it('both point at pg_dump/pg_restore, exit 1 and change nothing', async () => {
    const dataDir = tempDir();
    const env = {
      ...baseEnv(dataDir),
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
      DATABASE_SCHEMA: 't_backup',
    };
    const archive = path.join(tempDir(), 'x.tar.gz');
    writeFileSync(archive, 'not used');
    for (const args of [['backup'], ['backup', '--json'], ['restore', archive]]) {
      const result = await run(args, env);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/PostgreSQL is backed up with its own tools \(pg_dump and pg_restore/);
      expect(result.stderr).toMatch(/docs\/operations\.md/);
    }
    expect(readdirSync(dataDir)).toEqual([]);
  }, 60_000);
});
