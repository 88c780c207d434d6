import { type ApiKey, createApiKey, listApiKeys, revokeApiKey, SCOPES } from '../accounts/api-keys.js';
import { command, type Io, JSON_FLAG, resolveBrand, runGroup, UsageError, withDatabase } from './context.js';

export const KEYS_HELP = `Usage:
  lead-intake keys create --name NAME --scopes SCOPE[,SCOPE...] [--brand brd_...] [--json]
                          [--reads-per-minute N] [--writes-per-minute N] [--expires-at ISO-8601]
      Create an API key. The key is printed once; only its hash is stored.
      Scopes: ${SCOPES.join(', ')} (full grants everything).
      --brand may be left out when there is exactly one brand.
      --json prints one JSON object: id, key, brandId, name, scopes, ...
  lead-intake keys list [--brand brd_...] [--json]
      List keys with their state and last use (never the secret).
  lead-intake keys revoke KEY_ID
      Revoke a key. Running servers refuse it within KEY_CACHE_TTL_MS (default 5000 ms).`;

export function keysCommand(argv: string[], io: Io): Promise<number> {
  return runGroup(
    'keys',
    KEYS_HELP,
    {
      create: createCommand,
      list: listCommand,
      revoke: revokeCommand,
    },
    argv,
    io,
  );
}

function perMinute(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 1_000_000)
    throw new UsageError(`${flag} must be a whole number from 1 to 1000000.`);
  return Number(value);
}

function expiry(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new UsageError('--expires-at must be an ISO 8601 date and time, e.g. 2027-01-31T00:00:00Z.');
  return date;
}

const createCommand = command(
  {
    name: 'keys create',
    help: KEYS_HELP,
    options: {
      name: { type: 'string' },
      scopes: { type: 'string' },
      brand: { type: 'string' },
      json: JSON_FLAG,
      'reads-per-minute': { type: 'string' },
      'writes-per-minute': { type: 'string' },
      'expires-at': { type: 'string' },
    },
  },
  async ({ values }, io) => {
    if (values.name === undefined) throw new UsageError(`--name is required.\n\n${KEYS_HELP}`);
    if (values.scopes === undefined)
      throw new UsageError(`--scopes is required (comma-separated, from: ${SCOPES.join(', ')}).`);
    const expiresAt = expiry(values['expires-at']);
    const readsPerMinute = perMinute(values['reads-per-minute'], '--reads-per-minute');
    const writesPerMinute = perMinute(values['writes-per-minute'], '--writes-per-minute');
    const key = await withDatabase(async (database) =>
      createApiKey(database, {
        brandId: await resolveBrand(database, values.brand),
        name: values.name,
        scopes: values.scopes,
        createdBy: 'cli',
        expiresAt,
        readsPerMinute,
        writesPerMinute,
      }),
    );
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
      return 0;
    }
    io.out(
      `Created API key ${key.id} "${key.name}" for brand ${key.brandId} with scopes ${key.scopes.join(', ')}.`,
    );
    io.out('');
    io.out(`  ${key.key}`);
    io.out('');
    io.out('Copy it now: it is shown only this once. Send it in the X-API-Key header.');
    return 0;
  },
);

function describeState(key: ApiKey): string {
  if (key.revokedAt) return `revoked ${key.revokedAt}`;
  if (key.expiresAt)
    return `${Date.parse(key.expiresAt) <= Date.now() ? 'expired' : 'expires'} ${key.expiresAt}`;
  return 'active';
}

const listCommand = command(
  {
    name: 'keys list',
    help: KEYS_HELP,
    options: {
      brand: { type: 'string' },
      json: JSON_FLAG,
    },
  },
  async ({ values }, io) => {
    const keys = await withDatabase(async (database) =>
      listApiKeys(
        database,
        values.brand === undefined ? undefined : await resolveBrand(database, values.brand),
      ),
    );
    if (values.json) {
      io.out(JSON.stringify(keys));
    } else if (!keys.length) {
      io.out(
        'No API keys yet. Create one: lead-intake keys create --name "Website form" --scopes leads:write',
      );
    } else {
      for (const key of keys) {
        io.out(
          `${key.id}  lik_${key.displayPrefix}…  ${key.brandId}  ${key.scopes.join(',')}  ${describeState(key)}  last used ${key.lastUsedAt ?? 'never'}  "${key.name}"`,
        );
      }
    }
    return 0;
  },
);

const revokeCommand = command(
  { name: 'keys revoke', help: KEYS_HELP, positionals: true },
  async ({ positionals }, io) => {
    const [id, ...extra] = positionals;
    if (!id || extra.length) throw new UsageError('Say which key, by id: lead-intake keys revoke key_...');
    const { before, after } = await withDatabase(async (database) => {
      const before = (await listApiKeys(database)).find((key) => key.id === id);
      if (!before) throw new UsageError(`No API key with id ${id}. "lead-intake keys list" shows them.`);
      return { before, after: await revokeApiKey(database, id) };
    });
    io.out(
      before.revokedAt
        ? `API key ${after.id} "${after.name}" was already revoked at ${after.revokedAt}.`
        : `Revoked API key ${after.id} "${after.name}" at ${after.revokedAt}.`,
    );
    return 0;
  },
);
