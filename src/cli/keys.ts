import { parseArgs } from 'node:util';
import { createApiKey, listApiKeys, revokeApiKey, SCOPES } from '../domain/api-keys.js';
import { type Io, resolveBrand, UsageError, withDatabase } from './context.js';

const HELP = `Usage:
  lead-intake keys create --name NAME --scopes SCOPE[,SCOPE...] [--brand brd_...] [--json]
                          [--reads-per-minute N] [--writes-per-minute N] [--expires-at ISO-8601]
      Create an API key. The key is printed once; only its hash is stored.
      Scopes: ${SCOPES.join(', ')} (full grants everything).
      --brand may be left out when there is exactly one brand.
  lead-intake keys list [--brand brd_...] [--json]
      List keys (never the secret).
  lead-intake keys revoke KEY_ID
      Revoke a key; every instance refuses it within KEY_CACHE_TTL_MS (default 5 s).`;

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError(`${flag} must be a whole number of 1 or more.`);
  return Number(value);
}

export async function keysCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      scopes: { type: 'string' },
      brand: { type: 'string' },
      json: { type: 'boolean', default: false },
      'reads-per-minute': { type: 'string' },
      'writes-per-minute': { type: 'string' },
      'expires-at': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help || !sub || sub === '--help' || sub === '-h') {
    io.out(HELP);
    return values.help || sub === '--help' || sub === '-h' ? 0 : 1;
  }
  if (sub === 'create') {
    if (!values.name) throw new UsageError(`--name is required.\n\n${HELP}`);
    if (!values.scopes) throw new UsageError(`--scopes is required (comma-separated: ${SCOPES.join(', ')}).`);
    let expiresAt: Date | undefined;
    if (values['expires-at']) {
      expiresAt = new Date(values['expires-at']);
      if (Number.isNaN(expiresAt.getTime()))
        throw new UsageError('--expires-at must be an ISO 8601 date and time.');
    }
    const readsPerMinute = positiveInt(values['reads-per-minute'], '--reads-per-minute');
    const writesPerMinute = positiveInt(values['writes-per-minute'], '--writes-per-minute');
    const key = await withDatabase(async (database) => {
      const brandId = await resolveBrand(database, values.brand);
      return createApiKey(database.db, {
        brandId,
        name: values.name,
        scopes: values.scopes,
        createdBy: 'cli',
        expiresAt,
        readsPerMinute,
        writesPerMinute,
      });
    });
    if (values.json) {
      io.out(
        JSON.stringify({
          id: key.id,
          key: key.key,
          brandId: key.brandId,
          name: key.name,
          scopes: key.scopes,
          displayPrefix: key.displayPrefix,
          createdAt: key.createdAt,
          expiresAt: key.expiresAt,
          readsPerMinute: key.readsPerMinute,
          writesPerMinute: key.writesPerMinute,
        }),
      );
    } else {
      io.out(
        `Created API key ${key.id} "${key.name}" for brand ${key.brandId} with scopes ${key.scopes.join(', ')}.`,
      );
      io.out('');
      io.out(`  ${key.key}`);
      io.out('');
      io.out('Copy it now: it is shown only this once. Send it in the X-API-Key header.');
    }
    return 0;
  }
  if (sub === 'list') {
    const keys = await withDatabase(async (database) =>
      listApiKeys(database.db, values.brand ? await resolveBrand(database, values.brand) : undefined),
    );
    if (values.json) {
      io.out(JSON.stringify(keys));
    } else if (!keys.length) {
      io.out(
        'No API keys yet. Create one: lead-intake keys create --name "Website form" --scopes leads:write',
      );
    } else {
      for (const k of keys) {
        const state = k.revokedAt
          ? `revoked ${k.revokedAt}`
          : k.expiresAt
            ? `expires ${k.expiresAt}`
            : 'active';
        io.out(
          `${k.id}  lik_${k.displayPrefix}…  ${k.brandId}  ${k.scopes.join(',')}  ${state}  last used ${k.lastUsedAt ?? 'never'}  "${k.name}"`,
        );
      }
    }
    return 0;
  }
  if (sub === 'revoke') {
    const id = positionals[0];
    if (!id || positionals.length > 1)
      throw new UsageError(`Say which key: lead-intake keys revoke KEY_ID\n\n${HELP}`);
    try {
      const key = await withDatabase((database) => revokeApiKey(database.db, id));
      io.out(`Revoked API key ${key.id} "${key.name}" (revoked at ${key.revokedAt}).`);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('No API key'))
        throw new UsageError(error.message);
      throw error;
    }
    return 0;
  }
  throw new UsageError(`Unknown keys command "${sub}".\n\n${HELP}`);
}
