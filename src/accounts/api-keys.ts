// API keys: generation, hashing, lookup with a short-lived cache, revocation, and scope checks.
import { createHash, randomBytes } from 'node:crypto';
import type { Store } from '../platform/db/store.js';
import { type FieldError, NotFoundError, ValidationError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { type ApiKeyLookup, type Principal, SCOPES, type Scope } from '../shared/scopes.js';
import { isBlank } from '../shared/text.js';
import { iso, isoOrNull } from '../shared/time.js';
import * as q from './queries.js';

export { hasScope, type Principal, SCOPE_DESCRIPTIONS, SCOPES, type Scope } from '../shared/scopes.js';

export const KEY_PREFIX = 'lik_';
const KEY_BODY = /^lik_[A-Za-z0-9_-]{43}$/;

export interface ApiKey {
  id: string;
  brandId: string;
  name: string;
  displayPrefix: string;
  scopes: Scope[];
  createdAt: string;
  /**
   * Who created the key, as they were named then: a dashboard user's email, 'cli' for the command line, null for
   * keys from before this was recorded. Kept when that user is removed.
   */
  createdBy: string | null;
  /** The dashboard user who created the key; null from the command line. The user may since have been removed. */
  createdByUserId: string | null;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  readsPerMinute: number | null;
  writesPerMinute: number | null;
}

export interface CreatedApiKey extends ApiKey {
  /** The secret; shown once, never stored. */
  key: string;
}

function toApiKey(row: q.ApiKeyRow): ApiKey {
  return {
    id: row.id,
    brandId: row.brand_id,
    name: row.name,
    displayPrefix: row.display_prefix,
    scopes: row.scopes.split(' ').filter(Boolean) as Scope[],
    createdAt: iso(row.created_at),
    createdBy: row.created_by,
    createdByUserId: row.created_by_user_id,
    lastUsedAt: isoOrNull(row.last_used_at),
    expiresAt: isoOrNull(row.expires_at),
    revokedAt: isoOrNull(row.revoked_at),
    readsPerMinute: row.reads_per_minute,
    writesPerMinute: row.writes_per_minute,
  };
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function parseScopes(value: unknown): Scope[] {
  const list = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? value
          .split(/[\s,]+/)
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
  const unknown = list.filter((s) => !(SCOPES as readonly unknown[]).includes(s));
  if (unknown.length) {
    throw new ValidationError([
      {
        field: 'scopes',
        message: `unknown scope ${unknown.join(', ')}; known scopes: ${SCOPES.join(', ')}`,
        text: {
          key: 'apiKeys.scopes.unknown',
          values: { unknown: unknown.join(', '), known: SCOPES.join(', ') },
        },
      },
    ]);
  }
  if (!list.length)
    throw new ValidationError([
      {
        field: 'scopes',
        message: 'at least one scope is required',
        text: { key: 'apiKeys.scopes.required' },
      },
    ]);
  return [...new Set(list as Scope[])].sort((a, b) => SCOPES.indexOf(a) - SCOPES.indexOf(b));
}

export interface CreateKeyInput {
  brandId: string;
  name: unknown;
  scopes: unknown;
  /** A snapshot of who creates it (a user's email, or 'cli'). */
  createdBy?: string | null;
  /** The dashboard user who creates it. No foreign key: the key outlives the user. */
  createdByUserId?: string | null;
  expiresAt?: Date | null;
  readsPerMinute?: number | null;
  writesPerMinute?: number | null;
}

export async function createApiKey(store: Store, input: CreateKeyInput): Promise<CreatedApiKey> {
  const errors: FieldError[] = [];
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (isBlank(name))
    errors.push({ field: 'name', message: 'is required', text: { key: 'validation.required' } });
  else if (name.length > 100) {
    errors.push({
      field: 'name',
      message: 'must be at most 100 characters',
      text: { key: 'validation.tooLong', values: { max: 100 } },
    });
  }
  let scopes: Scope[] = [];
  try {
    scopes = parseScopes(input.scopes);
  } catch (error) {
    if (error instanceof ValidationError) errors.push(...error.errors);
    else throw error;
  }
  for (const field of ['readsPerMinute', 'writesPerMinute'] as const) {
    const v = input[field];
    if (v !== undefined && v !== null && (!Number.isInteger(v) || v < 1 || v > 1_000_000)) {
      errors.push({
        field,
        message: 'must be a whole number from 1 to 1000000',
        text: { key: 'apiKeys.limit.invalid', values: { min: 1, max: 1_000_000 } },
      });
    }
  }
  if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
    errors.push({ field: 'expiresAt', message: 'must be in the future' });
  }
  if (errors.length) throw new ValidationError(errors);
  if (!(await q.selectBrand(store, input.brandId)))
    throw new NotFoundError(`No brand with id ${input.brandId}`);

  // 32 random bytes = 256 bits, base64url: 43 characters after the prefix.
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const row = {
    id: newId('apiKey'),
    brand_id: input.brandId,
    name,
    display_prefix: key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 8),
    key_hash: hashKey(key),
    scopes: scopes.join(' '),
    created_at: Date.now(),
    created_by: input.createdBy ?? null,
    created_by_user_id: input.createdByUserId ?? null,
    last_used_at: null,
    expires_at: input.expiresAt ? input.expiresAt.getTime() : null,
    revoked_at: null,
    reads_per_minute: input.readsPerMinute ?? null,
    writes_per_minute: input.writesPerMinute ?? null,
  };
  await store.write((tx) => q.insertApiKey(tx, row));
  return { ...toApiKey(row), key };
}

export async function listApiKeys(store: Store, brandId?: string): Promise<ApiKey[]> {
  return (await q.selectApiKeys(store, brandId)).map(toApiKey);
}

/** Revokes a key. With brandId, only a key of that brand. Returns the key, or throws NotFoundError. */
export async function revokeApiKey(store: Store, id: string, brandId?: string): Promise<ApiKey> {
  const row = await store.write(async (tx) => {
    await q.revokeApiKey(tx, id, brandId, Date.now());
    return q.selectApiKey(tx, id, brandId);
  });
  if (!row) throw new NotFoundError(`No API key with id ${id}`);
  return toApiKey(row);
}

interface CacheEntry {
  principal: Principal | null;
  expiresAt: number | null;
  revoked: boolean;
  fetchedAt: number;
}

/**
 * Resolves keys to principals. A resolved key (or an unknown one) is trusted for ttlMs, so the hot path
 * costs no database round trip; revocation therefore takes effect within ttlMs on every instance.
 */
export class ApiKeyResolver implements ApiKeyLookup {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly lastUsedWritten = new Map<string, number>();
  private static readonly MAX_ENTRIES = 10_000;

  constructor(
    private readonly store: Store,
    private readonly ttlMs: number,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Returns the principal, or a reason the key is refused. */
  async resolve(key: string, now = Date.now()): Promise<Principal | 'unknown' | 'revoked' | 'expired'> {
    if (!KEY_BODY.test(key)) return 'unknown';
    const hash = hashKey(key);
    let entry = this.cache.get(hash);
    if (!entry || now - entry.fetchedAt >= this.ttlMs) {
      entry = await this.fetch(hash, now);
      if (this.ttlMs > 0) {
        if (this.cache.size >= ApiKeyResolver.MAX_ENTRIES) this.cache.clear();
        this.cache.set(hash, entry);
      }
    }
    if (!entry.principal) return 'unknown';
    if (entry.revoked) return 'revoked';
    if (entry.expiresAt !== null && entry.expiresAt <= now) return 'expired';
    this.touch(entry.principal.keyId, now);
    return entry.principal;
  }

  /** Drops cached entries so a revocation made by this process takes effect at once. */
  invalidate(): void {
    this.cache.clear();
  }

  private async fetch(hash: string, now: number): Promise<CacheEntry> {
    const row = await q.selectKeyByHash(this.store, hash);
    if (!row) return { principal: null, expiresAt: null, revoked: false, fetchedAt: now };
    return {
      principal: {
        keyId: row.id,
        keyName: row.name,
        brandId: row.brand_id,
        scopes: row.scopes.split(' ').filter(Boolean) as Scope[],
        readsPerMinute: row.reads_per_minute,
        writesPerMinute: row.writes_per_minute,
      },
      expiresAt: row.expires_at,
      revoked: row.revoked_at !== null,
      fetchedAt: now,
    };
  }

  /** Records lastUsedAt at most once a minute per key, off the request's critical path. */
  private touch(keyId: string, now: number): void {
    const last = this.lastUsedWritten.get(keyId);
    if (last !== undefined && now - last < 60_000) return;
    this.lastUsedWritten.set(keyId, now);
    this.store.write((tx) => q.touchApiKey(tx, keyId, now, 60_000)).catch(this.onError);
  }
}
