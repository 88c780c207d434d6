// Finds the migrations: every file in ./migrations named <10-digit timestamp>_<name>, exporting migration(dialect).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Migration } from 'kysely';
import type { Dialect } from './store.js';

// .ts when run from source (tests, tsx), .js from dist; declaration files never match (no dot in the name).
const MIGRATION_FILE = /^(\d{10}_[a-z0-9_-]+)\.(ts|js)$/;

/**
 * Every migration in order, by file name. Names are timestamps so they sort; never rename or edit one that has
 * shipped. Adding a migration is adding its file: nothing lists them by hand.
 */
export async function migrations(dialect: Dialect): Promise<Record<string, Migration>> {
  const folder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
  const found = new Map<string, string>();
  for (const file of fs.readdirSync(folder)) {
    const match = MIGRATION_FILE.exec(file);
    if (match) found.set(match[1]!, file);
  }
  const out: Record<string, Migration> = {};
  for (const name of [...found.keys()].sort()) {
    const module = (await import(pathToFileURL(path.join(folder, found.get(name)!)).href)) as {
      migration?: (dialect: Dialect) => Migration;
    };
    if (typeof module.migration !== 'function') {
      throw new Error(`Migration ${found.get(name)} must export migration(dialect)`);
    }
    out[name] = module.migration(dialect);
  }
  return out;
}
