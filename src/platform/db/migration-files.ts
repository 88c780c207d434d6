// Finds the migrations: every file in ./migrations named <10-digit timestamp>_<name>, exporting migration(dialect).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import type { Migration } from 'kysely';
import type { Dialect } from './store.js';

// .ts when run from source (tests, tsx), .js from dist; declaration files never match (no dot in the name).
const MIGRATION_FILE = /^(\d{10}_[a-z0-9_-]+)\.(ts|js)$/;

const folder = () => path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** The names of the migrations this version of lead-intake has, in order. */
export function migrationNames(): string[] {
  const names = new Set<string>();
  for (const file of fs.readdirSync(folder())) {
    const match = MIGRATION_FILE.exec(file);
    if (match) names.add(match[1]!);
  }
  return [...names].sort();
}

/**
 * The migrations applied to a SQLite database file (Kysely's kysely_migration table), in order; none for a file
 * without that table. Opened read-only.
 */
export function migrationsAppliedTo(file: string): string[] {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const table = db
      .prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'")
      .get();
    if (!table) return [];
    return db.prepare('select name from kysely_migration order by name').pluck().all() as string[];
  } finally {
    db.close();
  }
}

/**
 * Every migration in order, by file name. Names are timestamps so they sort; never rename or edit one that has
 * shipped. Adding a migration is adding its file: nothing lists them by hand.
 */
export async function migrations(dialect: Dialect): Promise<Record<string, Migration>> {
  const found = new Map<string, string>();
  for (const file of fs.readdirSync(folder())) {
    const match = MIGRATION_FILE.exec(file);
    if (match) found.set(match[1]!, file);
  }
  const out: Record<string, Migration> = {};
  for (const name of [...found.keys()].sort()) {
    const module = (await import(pathToFileURL(path.join(folder(), found.get(name)!)).href)) as {
      migration?: (dialect: Dialect) => Migration;
    };
    if (typeof module.migration !== 'function') {
      throw new Error(`Migration ${found.get(name)} must export migration(dialect)`);
    }
    out[name] = module.migration(dialect);
  }
  return out;
}
