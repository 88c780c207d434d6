// lead-intake customers …: what the office does for one person from the command line. One sub-command per entry
// of CUSTOMERS_COMMANDS, each with its lines in CUSTOMERS_HELP.
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Database } from '../platform/db/database.js';
import { command, type Io, resolveBrand, runGroup, UsageError, withDatabase } from './context.js';

export const CUSTOMERS_HELP = `Usage:
  lead-intake customers export (--id cus_... | --email EMAIL) [--brand brd_...] [--to FILE]
      Everything the brand holds about one person (GET /v1/customers/{id}/export): without --to the JSON
      document on standard output; with --to a ZIP with that JSON, the attachments' files and a README.
      --email finds the brand's customer with that email (any case).
      --brand may be left out when there is exactly one brand.
      Recorded in the customer's activity as an export by the command line.
  lead-intake customers erase (--id cus_... | --email EMAIL) [--brand brd_...] [--reason TEXT] [--json]
      Erases everything the person gave, at once and for good (POST /v1/customers/{id}/erase): the customer's
      contact details, their addresses' streets, and of every lead and work item of theirs what was sent, the
      notes, photos and files, and every copy in events, mail and the search. It cannot be undone.
      --reason is kept in the customer's history (no personal data in it, please).
      --json prints { "id", "erasedAt", "leads", "attachments" }.`;

/** The command line as the actor of what it does (customer activity). */
const CLI_ACTOR = { type: 'cli' as const, id: null, name: 'lead-intake customers export' };

export function customersCommand(argv: string[], io: Io): Promise<number> {
  return runGroup('customers', CUSTOMERS_HELP, { export: exportCommand, erase: eraseCommand }, argv, io);
}

/** The customer named by --id or --email (exactly one of them), of the brand. */
async function customerOf(
  database: Database,
  brandId: string,
  values: { id?: string | undefined; email?: string | undefined },
): Promise<string> {
  if ((values.id === undefined) === (values.email === undefined)) {
    throw new UsageError(
      `Say which customer with --id cus_... or --email EMAIL (one of them).\n\n${CUSTOMERS_HELP}`,
    );
  }
  if (values.id !== undefined) return values.id;
  const { findCustomerByEmail } = await import('../customers/customers.js');
  return (await findCustomerByEmail(database, brandId, values.email ?? '')).id;
}

/**
 * A one-line JSON log on standard error, as the server logs (pino's fields): ids only. Standard output holds the
 * document. Quiet below LOG_LEVEL info.
 */
function cliLog(io: Io, level: string) {
  const quiet = ['warn', 'error', 'fatal', 'silent'].includes(level);
  return {
    info(fields: Record<string, unknown>, msg: string) {
      if (!quiet) io.err(JSON.stringify({ level: 30, time: Date.now(), ...fields, msg }));
    },
  };
}

const exportCommand = command(
  {
    name: 'customers export',
    help: CUSTOMERS_HELP,
    options: {
      id: { type: 'string' },
      email: { type: 'string' },
      brand: { type: 'string' },
      to: { type: 'string' },
    },
  },
  async ({ values }, io) => {
    if (values.to !== undefined && values.to.trim() === '') throw new UsageError('--to needs a file name.');
    // Loaded here, not at start: every command (--help too) would otherwise load the whole service.
    const [{ exportPersonalData }, { personalDataZip }, { createStorage }] = await Promise.all([
      import('../personal-data/export.js'),
      import('../personal-data/zip.js'),
      import('../platform/storage/storage.js'),
    ]);
    return withDatabase(async (database, config) => {
      const brandId = await resolveBrand(database, values.brand);
      const id = await customerOf(database, brandId, values);
      const log = cliLog(io, config.logLevel);
      const built = await exportPersonalData(database, brandId, id, CLI_ACTOR, log);
      if (values.to === undefined) {
        io.out(JSON.stringify(built.document, null, 2));
        return 0;
      }
      const storage = createStorage(config.attachments.storage);
      const partial = `${values.to}.partial`;
      try {
        await pipeline(personalDataZip(database, storage, built), createWriteStream(partial));
        await rename(partial, values.to);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      } finally {
        storage.close?.();
      }
      const files = built.document.leads.reduce((n, lead) => n + lead.attachments.length, 0);
      io.out(
        `Wrote the personal data of ${id} (${built.document.leads.length} lead(s), ${files} file(s)) to ${values.to}.`,
      );
      return 0;
    });
  },
);

const eraseCommand = command(
  {
    name: 'customers erase',
    help: CUSTOMERS_HELP,
    options: {
      id: { type: 'string' },
      email: { type: 'string' },
      brand: { type: 'string' },
      reason: { type: 'string' },
      json: { type: 'boolean' },
    },
  },
  async ({ values }, io) => {
    if (values.reason !== undefined && values.reason.length > 500)
      throw new UsageError('--reason must be at most 500 characters.');
    const [{ eraseCustomer }, { createStorage }] = await Promise.all([
      import('../personal-data/erase.js'),
      import('../platform/storage/storage.js'),
    ]);
    return withDatabase(async (database, config) => {
      const brandId = await resolveBrand(database, values.brand);
      const id = await customerOf(database, brandId, values);
      const storage = createStorage(config.attachments.storage);
      try {
        const log = {
          ...cliLog(io, config.logLevel),
          error: (f: object, msg: string) =>
            io.err(JSON.stringify({ level: 50, time: Date.now(), ...f, msg })),
        };
        const actor = { type: 'cli' as const, id: null, name: 'lead-intake customers erase' };
        const reason = values.reason?.trim();
        const result = await eraseCustomer(
          { database, storage, log },
          brandId,
          id,
          actor,
          reason ? { reason } : {},
        );
        if (values.json) io.out(JSON.stringify(result));
        else if (result.leads === 0 && result.attachments === 0)
          io.out(`Erased ${id} (it had been erased at ${result.erasedAt}; nothing changed).`);
        else
          io.out(
            `Erased ${id}: ${result.leads} lead(s) and work item(s), ${result.attachments} file(s). Nothing the person gave is left.`,
          );
        return 0;
      } finally {
        storage.close?.();
      }
    });
  },
);
