// What every sub-command shares: argument parsing, output, an open and migrated database, brand resolution.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { listBrands } from '../accounts/brands.js';
import { POSTGRES_MESSAGE } from '../platform/backup/archive.js';
import { type Config, loadConfig } from '../platform/config.js';
import { type Database, migrate, openDatabase } from '../platform/db/database.js';

/** A mistake the person at the keyboard can fix: printed as "Error: …", exit code 1. */
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

function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
}

/** parseArgs, with its errors turned into a UsageError that points at the command's help. */
export function parseFlags<const T extends ParseArgsConfig>(
  command: string,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    if (!isParseArgsError(error)) throw error;
    throw new UsageError(
      `${error.message.replace(/\.$/, '')}.\nRun "lead-intake ${command} --help" for its options.`,
    );
  }
}

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** --help and -h, which every command takes. */
const HELP_FLAG = { help: { type: 'boolean', short: 'h', default: false } } as const;

/** --json: the result as JSON instead of a sentence. */
export const JSON_FLAG = { type: 'boolean', default: false } as const;

/** The parsed arguments of a command whose options are O (and --help). */
export type Flags<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O & typeof HELP_FLAG; strict: true; allowPositionals: true }>
>;

export interface CommandSpec<O extends ParseArgsOptionsConfig> {
  /** As typed after `lead-intake`, e.g. `keys create`: named in a usage error. */
  name: string;
  /** Printed for --help or -h, instead of running the command. */
  help: string;
  options?: O;
  /** Whether the command takes arguments besides its options (`keys revoke key_…`). */
  positionals?: boolean;
}

/**
 * A command: its arguments parsed strictly (a mistake is a UsageError pointing at its help) with --help added,
 * which prints the help and exits 0; run is given the parsed arguments otherwise.
 */
export function command<const O extends ParseArgsOptionsConfig = Record<never, never>>(
  spec: CommandSpec<O>,
  run: (flags: Flags<O>, io: Io) => Promise<number>,
): (args: string[], io: Io) => Promise<number> {
  return async (args, io) => {
    const flags = parseFlags(spec.name, {
      args,
      options: { ...spec.options, ...HELP_FLAG },
      allowPositionals: spec.positionals ?? false,
      strict: true,
    });
    if (flags.values.help) {
      io.out(spec.help);
      return 0;
    }
    return run(flags as unknown as Flags<O>, io);
  };
}

/** True when the arguments are only a request for help. */
export function wantsHelp(args: readonly string[]): boolean {
  return args.length === 1 && (args[0] === '--help' || args[0] === '-h' || args[0] === 'help');
}

/**
 * Runs a command group (`keys create …`): help for `keys`, `keys --help` and `keys help`, the sub-command's
 * handler otherwise. A missing sub-command is a usage error; asking for help is not.
 */
export async function runGroup(
  group: string,
  help: string,
  handlers: Record<string, (args: string[], io: Io) => Promise<number>>,
  argv: string[],
  io: Io,
): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined) {
    io.err(help);
    return 1;
  }
  if (wantsHelp([sub])) {
    io.out(help);
    return 0;
  }
  const handler = Object.hasOwn(handlers, sub) ? handlers[sub] : undefined;
  if (!handler) throw new UsageError(`Unknown command "${group} ${sub}".\n\n${help}`);
  return handler(rest, io);
}

/** A configuration on the embedded SQLite database. */
export type SqliteConfig = Readonly<Config> & { readonly database: { dialect: 'sqlite'; file: string } };

/**
 * The step `backup` and `restore` share: they copy the embedded SQLite database only. With DATABASE_URL they refuse
 * before touching anything, pointing at PostgreSQL's own tools (pg_dump, pg_restore) and docs/operations.md.
 */
export function sqliteOnly(config: Readonly<Config>): SqliteConfig {
  if (config.database.dialect !== 'sqlite') throw new UsageError(POSTGRES_MESSAGE);
  return config as SqliteConfig;
}

/** Opens the configured database, brings its schema up to date, runs fn, and always closes it. */
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
  const brands = await listBrands(database);
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
