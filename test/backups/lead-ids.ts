// The lead ids in a SQLite file, read directly: what a restored copy holds, whatever the app would show of it.
import SQLite from 'better-sqlite3';

export function leadIdsIn(file: string): Set<string> {
  const db = new SQLite(file, { readonly: true });
  try {
    return new Set(db.prepare('select id from leads').pluck().all() as string[]);
  } finally {
    db.close();
  }
}
