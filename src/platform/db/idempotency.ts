// Idempotency keys: a retried POST with the same key and body gets the first response instead of a second lead.
import { createHash, randomBytes } from 'node:crypto';
import { DomainError } from '../../shared/errors.js';
import { mentionsAny } from './mentions.js';
import { insertOrGet } from './portable.js';
import { type Runner, statement } from './sql.js';
import type { Store, Tx } from './store.js';

/** How long a key is remembered (per API key). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A claim still in flight after this long belongs to a request that died (its transaction never committed, or
 * it would have completed the claim), so a retry may take it over.
 */
export const IN_FLIGHT_TIMEOUT_MS = 60_000;

const COMPLETE = statement(
  "update idempotency_keys set state = 'completed', response_status = ?, response_body = ? " +
    "where key_id = ? and idempotency_key = ? and claim_token = ? and state = 'in_flight'",
);

/** JSON with object keys sorted at every level: two bodies that mean the same have the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

export interface IdempotencyScope {
  /** The API key the request came with: keys are remembered per API key. */
  keyId: string;
  key: string;
  fingerprint: string;
}

export type ClaimResult =
  | { outcome: 'claimed'; token: string }
  | { outcome: 'replay'; status: number; body: string }
  | { outcome: 'in_flight' }
  | { outcome: 'mismatch' };

/**
 * Takes the key for this request by inserting it in state in_flight (insert-or-conflict, so of two racing
 * requests on any number of instances exactly one gets it), or says what the earlier request left behind.
 */
export function claimIdempotencyKey(
  store: Store,
  scope: IdempotencyScope,
  now: number = Date.now(),
): Promise<ClaimResult> {
  return store.write((tx) => claim(tx, scope, now));
}

async function claim(tx: Tx, scope: IdempotencyScope, now: number): Promise<ClaimResult> {
  const { db } = tx;
  for (let round = 0; round < 3; round++) {
    const token = randomBytes(12).toString('hex');
    const found = await insertOrGet(
      tx,
      'idempotency_keys',
      {
        key_id: scope.keyId,
        idempotency_key: scope.key,
        fingerprint: scope.fingerprint,
        state: 'in_flight',
        claim_token: token,
        response_status: null,
        response_body: null,
        created_at: now,
      },
      ['key_id', 'idempotency_key'],
      ['fingerprint', 'state', 'claim_token', 'response_status', 'response_body', 'created_at'],
    );
    if (!found) continue;
    if (found.inserted) return { outcome: 'claimed', token };
    const existing = found.row;
    if (existing.created_at <= now - IDEMPOTENCY_TTL_MS) {
      // Expired but not yet pruned: forget it, then claim afresh.
      await db
        .deleteFrom('idempotency_keys')
        .where('key_id', '=', scope.keyId)
        .where('idempotency_key', '=', scope.key)
        .where('created_at', '=', existing.created_at)
        .execute();
      continue;
    }
    if (existing.fingerprint !== scope.fingerprint) return { outcome: 'mismatch' };
    if (existing.state === 'completed') {
      return {
        outcome: 'replay',
        status: existing.response_status ?? 200,
        body: existing.response_body ?? '',
      };
    }
    if (existing.created_at <= now - IN_FLIGHT_TIMEOUT_MS) {
      const taken = await db
        .updateTable('idempotency_keys')
        .set({ claim_token: token, created_at: now })
        .where('key_id', '=', scope.keyId)
        .where('idempotency_key', '=', scope.key)
        .where('state', '=', 'in_flight')
        .where('claim_token', '=', existing.claim_token)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return { outcome: 'claimed', token };
      continue;
    }
    return { outcome: 'in_flight' };
  }
  return { outcome: 'in_flight' };
}

/**
 * Stores the response with the claim. Run it inside the transaction that does the work: the response exists
 * exactly when the work committed. Fails (rolling the work back) if the claim was taken over meanwhile.
 */
export async function completeIdempotencyKey(
  r: Runner,
  scope: IdempotencyScope,
  token: string,
  status: number,
  body: string,
): Promise<void> {
  const changed = await r.run(COMPLETE, [status, body, scope.keyId, scope.key, token]);
  if (changed !== 1) {
    throw new DomainError(
      'conflict',
      'Another request with this Idempotency-Key took over while this one was running; nothing was stored by this one.',
    );
  }
}

/** Lets go of a claim whose request failed, so a retry with the same key can succeed. */
export async function releaseIdempotencyKey(
  store: Store,
  scope: IdempotencyScope,
  token: string,
): Promise<void> {
  await store.write(({ db }) =>
    db
      .deleteFrom('idempotency_keys')
      .where('key_id', '=', scope.keyId)
      .where('idempotency_key', '=', scope.key)
      .where('claim_token', '=', token)
      .where('state', '=', 'in_flight')
      .execute(),
  );
}

/** Deletes keys older than 24 hours. Returns how many. */
export async function pruneIdempotencyKeys(store: Store, now: number = Date.now()): Promise<number> {
  const result = await store.write(({ db }) =>
    db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<=', now - IDEMPOTENCY_TTL_MS)
      .executeTakeFirst(),
  );
  return Number(result.numDeletedRows);
}

/**
 * Erasure: rewrites the stored responses that mention one of these ids with `rewrite` (a retry with the same key
 * then answers what is left of them). Returns how many changed.
 */
export async function rewriteIdempotentResponses(
  tx: Tx,
  ids: readonly string[],
  rewrite: (body: string) => string,
): Promise<number> {
  if (!ids.length) return 0;
  const rows = await tx.db
    .selectFrom('idempotency_keys')
    .select(['key_id', 'idempotency_key', 'response_body'])
    .where(mentionsAny('response_body', ids))
    .execute();
  let changed = 0;
  for (const row of rows) {
    if (row.response_body === null) continue;
    const body = rewrite(row.response_body);
    if (body === row.response_body) continue;
    await tx.db
      .updateTable('idempotency_keys')
      .set({ response_body: body })
      .where('key_id', '=', row.key_id)
      .where('idempotency_key', '=', row.idempotency_key)
      .execute();
    changed++;
  }
  return changed;
}
