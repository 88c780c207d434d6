// lead-intake <command>: serve, migrate, brands, keys, users, customers, backup, restore. One file per command.
// Exit codes: 0 done, 1 a mistake in the command or its input (nothing was changed), 2 anything else.
import { readFileSync } from 'node:fs';
import { ConfigError } from '../platform/config.js';
import { DomainError, type FieldError, ValidationError } from '../shared/errors.js';
import { backupCommand } from './backup.js';
import { brandsCommand } from './brands.js';
import { defaultIo, type Io, UsageError, wantsHelp } from './context.js';
import { customersCommand } from './customers.js';
import { keysCommand } from './keys.js';
import { migrateCommand } from './migrate.js';
import { restoreCommand } from './restore.js';
import { serveCommand } from './serve.js';
import { usersCommand } from './users.js';

export const HELP = `Usage: lead-intake <command> [options]

Commands:
  serve                       Start the HTTP server (migrates first)
  migrate                     Bring the database schema up to date, then exit
  brands create|list          Manage brands
  keys create|list|revoke     Manage API keys
  users create|reset-password Add a dashboard user to a brand, or set a user's new password
  customers export|erase      A person's data: the JSON document or a ZIP with their files; erase it all
  backup [--to FILE]          Copy the SQLite database and attachments into one archive (server may run)
  restore FILE                Put a backup in place of DATA_DIR's data (server stopped)

Run "lead-intake <command> --help" for a command's options, "lead-intake --version" for the version.
Configuration comes from the environment (DATA_DIR, DATABASE_URL, ...), the same as the server's:
see the README.`;

const COMMANDS: Record<string, (args: string[], io: Io) => Promise<number>> = {
  serve: serveCommand,
  migrate: migrateCommand,
  brands: brandsCommand,
  keys: keysCommand,
  users: usersCommand,
  customers: customersCommand,
  backup: backupCommand,
  restore: restoreCommand,
};

// Domain validation names fields as the API does; on the command line they are flags.
const FLAG_OF_FIELD: Record<string, string> = {
  name: '--name',
  country: '--country',
  timeZone: '--time-zone',
  scopes: '--scopes',
  email: '--email',
  expiresAt: '--expires-at',
  readsPerMinute: '--reads-per-minute',
  writesPerMinute: '--writes-per-minute',
  password: 'The password',
};

function describeFieldError({ field, message }: FieldError): string {
  const flag = FLAG_OF_FIELD[field] ?? field;
  return /^(is|must) /.test(message) ? `${flag} ${message}` : `${flag}: ${message}`;
}

function version(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) {
      io.err(HELP);
      return 1;
    }
    if (wantsHelp([command])) {
      // "lead-intake help keys" is "lead-intake keys --help".
      const topic = rest[0];
      if (command === 'help' && topic !== undefined && Object.hasOwn(COMMANDS, topic)) {
        return await COMMANDS[topic]!(['--help'], io);
      }
      io.out(HELP);
      return 0;
    }
    if (command === '--version' || command === '-v') {
      io.out(version());
      return 0;
    }
    const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (!run) throw new UsageError(`Unknown command "${command}".\n\n${HELP}`);
    return await run(rest, io);
  } catch (error) {
    return report(error, io);
  }
}

function report(error: unknown, io: Io): number {
  if (error instanceof ValidationError) {
    for (const fieldError of error.errors) io.err(`Error: ${describeFieldError(fieldError)}.`);
    return 1;
  }
  if (error instanceof UsageError || error instanceof ConfigError || error instanceof DomainError) {
    io.err(`Error: ${error.message}`);
    return 1;
  }
  io.err(`Error: ${error instanceof Error ? error.message : String(error)}`);
  return 2;
}
