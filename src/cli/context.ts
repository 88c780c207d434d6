// What every sub-command shares: config, an open and migrated database, output helpers.
import { type Config, loadConfig } from '../config.js';
import { type Database, migrate, openDatabase } from '../db/database.js';
import { listBrands } from '../domain/brands.js';

export class UsageError extends Error {}

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

export const defaultIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  stdin: process.stdin,
};

export async function withDatabase<T>(
  fn: (database: Database, config: Readonly<Config>) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  const database = openDatabase(config.database, config.sqliteSynchronous);
  try {
    await migrate(database, config.database.dialect === 'postgres' ? config.database.schema : undefined);
    return await fn(database, config);
  } finally {
    await database.close();
  }
}

/** The brand named by --brand, or the only brand when there is exactly one. */
export async function resolveBrand(database: Database, given: string | undefined): Promise<string> {
  const brands = await listBrands(database.db);
  if (given) {
    if (!brands.some((b) => b.id === given)) {
      throw new UsageError(
        `No brand with id ${given}. Known brands: ${brands.map((b) => b.id).join(', ') || 'none'}.`,
      );
    }
    return given;
  }
  if (brands.length === 0) {
    throw new UsageError(
      'There is no brand yet. Create one first: lead-intake brands create --name "Your company"',
    );
  }
  if (brands.length > 1) {
    throw new UsageError(
      `There are ${brands.length} brands; say which with --brand (one of ${brands.map((b) => `${b.id} (${b.name})`).join(', ')}).`,
    );
  }
  return brands[0]!.id;
}
