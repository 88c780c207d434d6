// Schemas shared by every resource: problem bodies, list envelopes, paging parameters.
import { type TObject, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';

import { NullableString } from '../../shared/json-schema.js';
import { MAX_LIMIT } from '../../shared/paging.js';

export { NullableString, Timestamp } from '../../shared/json-schema.js';

/**
 * A body schema whose `x-validator` names a parser that app.ts runs instead of ajv: the handler receives what
 * that parser returns, so the parser's result is the body's static type. The JSON schema (and so the document)
 * is unchanged; it still describes what a client sends.
 */
export function parsedBy<T>(_parser: (body: unknown) => T, schema: TObject): TUnsafe<T> {
  // Without x-validator ajv would check the body and the handler would get the raw JSON, not a T.
  if (typeof schema['x-validator'] !== 'string') throw new Error('parsedBy: the schema names no x-validator');
  return Type.Unsafe<T>(schema);
}

export const FieldErrorSchema = Type.Object(
  {
    field: Type.String({ description: 'The body field or query parameter that failed, e.g. "postalCode".' }),
    message: Type.String(),
  },
  { additionalProperties: false },
);

export const ProblemRef = Type.Ref('Problem');

// Errors are sent as application/problem+json, so the document names that media type, not application/json.
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ProblemRef } },
});

/** Error responses a route can give, for the OpenAPI document. */
export function errorResponses(statuses: number[]): Record<number, TSchema> {
  const text: Record<number, string> = {
    400: 'Malformed JSON or a bad header.',
    401: 'API key missing, unknown, revoked or expired.',
    403: 'The API key lacks the scope this route needs.',
    404: 'Unknown path or id, or an id of another brand.',
    409: 'State change not allowed from the current state.',
    413: 'Body over 64 KiB.',
    415: 'Body is not application/json.',
    422: 'Validation failed; `errors` lists every failing field.',
    429: 'Rate limit reached; see Retry-After.',
    503: 'Database unreachable or server overloaded; see Retry-After.',
  };
  const out: Record<number, TSchema> = {};
  for (const status of statuses) out[status] = problem(text[status] ?? 'Error.') as unknown as TSchema;
  return out;
}

/** An ISO 8601 filter parameter; a value without a zone is taken as UTC. */
export function TimestampParam(description: string) {
  return Type.Optional(
    Type.String({
      format: 'date-time',
      description,
      'x-error': 'must be an ISO 8601 timestamp such as 2026-11-21T09:30:00.000Z',
    }),
  );
}

export const ListQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: 'Items per page: default 50; values above 100 (however large) are served as 100.',
      // Read by the query validator (src/api/validation.ts): a longer run of digits is not a 422.
      'x-served-max': MAX_LIMIT,
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      maxLength: 200,
      format: 'cursor',
      description:
        'Opaque cursor from a previous page’s nextCursor; the listing continues in the order it was issued for.',
      'x-error': 'is not a cursor this API issued',
    }),
  ),
  order: Type.Optional(
    Type.Union([Type.Literal('desc'), Type.Literal('asc')], {
      description: 'desc (default): newest first; asc: oldest first.',
    }),
  ),
};

export function listEnvelope<T extends TSchema>(item: T, name: string) {
  return Type.Object(
    {
      data: Type.Array(item),
      limit: Type.Integer({ description: 'The page size that was served (at most 100).' }),
      hasMore: Type.Boolean({ description: 'True when another page follows.' }),
      nextCursor: NullableString({
        description: 'Pass as cursor= to get the next page; null on the last page.',
      }),
    },
    { additionalProperties: false, title: name },
  );
}

// Printable ASCII only: a control character would reach the database (PostgreSQL rejects NUL in text).
// A path parameter that fails this is answered 404 like any other unknown id (see the error handler).
export const IdParams = Type.Object(
  {
    id: Type.String({
      maxLength: 100,
      pattern: '^[\\x21-\\x7e]+$',
      description: 'The identifier returned on creation.',
    }),
  },
  { additionalProperties: false },
);

export const IdempotencyHeaders = Type.Object(
  {
    'idempotency-key': Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'Makes the request safe to retry: 1 to 255 printable ASCII characters, unique per request (a UUID). Kept 24 hours per API key.',
      }),
    ),
  },
  { additionalProperties: true },
);
