// RFC 9457 problem details: the one shape every error response has.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FieldError } from '../../shared/errors.js';

export const PROBLEM_BASE = 'https://lead-intake.dev/errors/';

export const PROBLEMS = {
  bad_request: { status: 400, title: 'Bad request' },
  malformed_json: { status: 400, title: 'Malformed JSON' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  request_timeout: { status: 408, title: 'Request timeout' },
  conflict: { status: 409, title: 'Conflict' },
  invalid_state_transition: { status: 409, title: 'State change not allowed' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation: { status: 422, title: 'Validation failed' },
  rate_limited: { status: 429, title: 'Too many requests' },
  header_fields_too_large: { status: 431, title: 'Request header fields too large' },
  internal: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const;

export type ProblemCode = keyof typeof PROBLEMS;

export interface ProblemExtras {
  errors?: FieldError[];
  [key: string]: unknown;
}

export function problemBody(
  code: ProblemCode,
  detail: string,
  requestId: string,
  extras: ProblemExtras = {},
  statusOverride?: number,
) {
  const { title } = PROBLEMS[code];
  const status = statusOverride ?? PROBLEMS[code].status;
  const body = {
    type: PROBLEM_BASE + code.replace(/_/g, '-'),
    title,
    status,
    detail,
    requestId,
    ...extras,
  };
  // The API speaks English: an entry's message for people (FieldError.text) stays out of it.
  if (extras.errors) body.errors = extras.errors.map(({ field, message }) => ({ field, message }));
  return body;
}

/** Sends a problem; the body is pre-serialised so no route response schema can strip its fields. */
export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ProblemCode,
  detail: string,
  extras: ProblemExtras = {},
  statusOverride?: number,
) {
  const body = problemBody(code, detail, String(request.id), extras, statusOverride);
  return reply.code(body.status).type('application/problem+json').send(JSON.stringify(body));
}

/** The only thing a 500 says: that it was our fault, and which request to quote. */
export function sendInternalError(request: FastifyRequest, reply: FastifyReply) {
  return sendProblem(
    request,
    reply,
    'internal',
    `Something went wrong on our side. Quote request id ${request.id} when you report it.`,
  );
}
