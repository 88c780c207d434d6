// An archive as a newer lead-intake would make it: its database carries a migration this version does not have,
// and its manifest names a newer app version, with checksums that match (an intact archive, only too new).
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import * as tar from 'tar';

export const FUTURE_MIGRATION = '2099010101_from_the_future';

export async function futureArchive(archive: string, out: string, version = '99.0.0'): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lead-intake-future-'));
  try {
    await tar.extract({ file: archive, cwd: dir });
    const file = path.join(dir, 'database', 'lead-intake.sqlite');
    const db = new SQLite(file);
    db.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run(
      FUTURE_MIGRATION,
      new Date().toISOString(),
    );
    db.close();
    const manifestFile = path.join(dir, 'manifest.json');
    const manifest = JSON.parse(await fs.readFile(manifestFile, 'utf8'));
    const bytes = await fs.readFile(file);
    manifest.appVersion = version;
    manifest.database.lastMigration = FUTURE_MIGRATION;
    for (const entry of manifest.files) {
      if (entry.path !== 'database/lead-intake.sqlite') continue;
      entry.bytes = bytes.length;
      entry.sha256 = createHash('sha256').update(bytes).digest('hex');
    }
    await fs.writeFile(manifestFile, JSON.stringify(manifest));
    await tar.create({ gzip: true, file: out, cwd: dir, portable: true }, await fs.readdir(dir));
    return out;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
