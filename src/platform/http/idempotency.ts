// The Idempotency-Key header on POST routes: parse it, fingerprint the body, and run the work at most once.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, ValidationError } from '../../shared/errors.js';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  type IdempotencyScope,
  releaseIdempotencyKey,
  requestFingerprint,
} from '../db/idempotency.js';
import type { Store, Tx } from '../db/store.js';
import { sendProblem } from './problem.js';

const HEADER = 'idempotency-key';
const PRINTABLE = /^[\x20-\x7e]{1,255}$/;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by idempotencyPreValidation when the request sent an Idempotency-Key. */
    idempotency?: { key: string; fingerprint: string };
  }
}

/**
 * Route hook, before body validation: a bad header is a 400 before anything else, and the fingerprint is taken
 * from the body as sent (canonical JSON), not as normalised by the validator.
 */
export async function idempotencyPreValidation(request: FastifyRequest, reply: FastifyReply) {
  const raw = request.headers[HEADER];
  if (raw === undefined) return;
  const value = Array.isArray(raw) ? undefined : raw;
  if (value === undefined || !PRINTABLE.test(value) || !value.trim()) {
    return sendProblem(
      request,
      reply,
      'bad_request',
      'Idempotency-Key must be sent once, as 1 to 255 printable ASCII characters (a UUID is a good choice).',
    );
  }
  request.idempotency = { key: value, fingerprint: requestFingerprint(request.body) };
}

export interface StoredResponse {
  status: number;
  /** The JSON body, exactly as it was (or will be) sent. */
  body: string;
  replayed: boolean;
}

/** Stores the response inside the work's own transaction; the work calls it once, with the response it will send. */
export type Remember = (tx: Tx, status: number, body: string) => Promise<void>;

/**
 * Runs `work` once per (API key, Idempotency-Key): a repeat with the same body gets the stored response, a
 * different body is a 422, a repeat while the first still runs is a 409. A failed attempt releases the key.
 */
export async function runIdempotent(
  store: Store,
  keyId: string,
  idempotency: { key: string; fingerprint: string },
  work: (remember: Remember) => Promise<{ status: number; body: string }>,
): Promise<StoredResponse> {
  const scope: IdempotencyScope = { keyId, ...idempotency };
  const claim = await claimIdempotencyKey(store, scope);
  if (claim.outcome === 'mismatch') {
    throw new ValidationError([
      {
        field: 'Idempotency-Key',
        message:
          'was already used with a different request body; send a new key for a different request (keys are kept 24 hours)',
      },
    ]);
  }
  if (claim.outcome === 'in_flight') {
    throw new DomainError(
      'conflict',
      'A request with this Idempotency-Key is still being processed. Retry after it finishes to get its response.',
    );
  }
  if (claim.outcome === 'replay') return { status: claim.status, body: claim.body, replayed: true };
  try {
    const response = await work((tx, status, body) =>
      completeIdempotencyKey(tx, scope, claim.token, status, body),
    );
    return { ...response, replayed: false };
  } catch (error) {
    await releaseIdempotencyKey(store, scope, claim.token).catch(() => {
      // The database is failing too: the claim times out (IN_FLIGHT_TIMEOUT_MS) and a retry can take it over.
    });
    throw error;
  }
}

export function sendStored(reply: FastifyReply, stored: StoredResponse) {
  if (stored.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.code(stored.status).type('application/json; charset=utf-8').send(stored.body);
}
