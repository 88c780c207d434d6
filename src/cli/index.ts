// lead-intake <command>: serve, migrate, brands, keys, users. One file per command group.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { migrate, openDatabase } from '../db/database.js';
import { ValidationError } from '../domain/errors.js';
import { brandsCommand } from './brands.js';
import { defaultIo, type Io, UsageError } from './context.js';
import { keysCommand } from './keys.js';
import { usersCommand } from './users.js';

const HELP = `Usage: lead-intake <command> [options]

Commands:
  serve                       Start the HTTP server (migrates first)
  migrate                     Bring the database schema up to date, then exit
  brands create|list          Manage brands
  keys create|list|revoke     Manage API keys
  users create                Add a dashboard user to a brand

Run "lead-intake <command> --help" for a command's options.
Configuration comes from the environment (DATABASE_URL, DATA_DIR, ...): see the README.`;

export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve': {
        if (rest.includes('--help') || rest.includes('-h')) {
          io.out(
            'Usage: lead-intake serve\n\nStarts the server on HOST:PORT (default 127.0.0.1:3000). See the README for the environment.',
          );
          return 0;
        }
        const { serve } = await import('../server.js');
        await serve(loadConfig());
        return 0;
      }
      case 'migrate': {
        parseArgs({ args: rest, options: { help: { type: 'boolean', short: 'h' } }, strict: true });
        if (rest.length) {
          io.out(
            'Usage: lead-intake migrate\n\nApplies pending migrations (safe to run while instances start) and exits.',
          );
          return 0;
        }
        const config = loadConfig();
        const database = openDatabase(config.database, config.sqliteSynchronous);
        try {
          const applied = await migrate(
            database,
            config.database.dialect === 'postgres' ? config.database.schema : undefined,
          );
          io.out(
            applied.length
              ? `Applied ${applied.length} migration(s): ${applied.join(', ')}`
              : 'The database is up to date.',
          );
        } finally {
          await database.close();
        }
        return 0;
      }
      case 'brands':
        return await brandsCommand(rest, io);
      case 'keys':
        return await keysCommand(rest, io);
      case 'users':
        return await usersCommand(rest, io);
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.out(HELP);
        return command === undefined ? 1 : 0;
      default:
        io.err(`Unknown command "${command}".\n\n${HELP}`);
        return 1;
    }
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      io.err(`Error: ${error.message}`);
      return 1;
    }
    if (error instanceof ValidationError) {
      io.err(`Error: ${error.errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
      return 1;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      io.err(`Error: ${error.message}. Use --help for the options.`);
      return 1;
    }
    io.err(`Error: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
}
