// One error handler: every thrown error becomes problem+json; unknown errors become a bare 500.
import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import {
  DomainError,
  type FieldError,
  InvalidTransitionError,
  ValidationError,
} from '../../../shared/errors.js';
import { isDatabaseUnavailable } from '../../db/errors.js';
import { MalformedBodyError } from '../body-text.js';
import { type ProblemCode, sendInternalError, sendProblem } from '../problem.js';

interface AjvError {
  instancePath?: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  /** With ajv's verbose option: the schema that failed, whose x-error says what a person should read. */
  parentSchema?: Record<string, unknown>;
}

/** Turns ajv errors into one { field, message } per failing field. */
export function ajvToFieldErrors(errors: AjvError[], context: string | undefined): FieldError[] {
  const out = new Map<string, string>();
  for (const e of errors) {
    let field = (e.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      field = [field, String(e.params.missingProperty)].filter(Boolean).join('.');
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      field = [field, String(e.params.additionalProperty)].filter(Boolean).join('.');
      message = context === 'querystring' ? 'is not a known query parameter' : 'is not a known field';
    } else if (e.keyword === 'type') {
      message = `must be ${e.params.type === 'integer' ? 'a whole number' : `of type ${String(e.params.type)}`}`;
    } else if (e.keyword === 'enum') {
      message = `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
    } else if (e.keyword === 'minimum') {
      message = `must be ${String(e.params.limit)} or more`;
    } else if (typeof e.parentSchema?.['x-error'] === 'string') {
      message = e.parentSchema['x-error'];
    }
    if (!field) field = context === 'body' ? '(body)' : `(${context ?? 'request'})`;
    if (!out.has(field)) out.set(field, message);
  }
  return [...out].map(([field, message]) => ({ field, message }));
}

const DOMAIN_TO_PROBLEM: Record<string, ProblemCode> = {
  validation: 'validation',
  not_found: 'not_found',
  conflict: 'conflict',
  invalid_state_transition: 'invalid_state_transition',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  unavailable: 'service_unavailable',
};

export default fp(
  async function errorsPlugin(app: FastifyInstance) {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      if (error instanceof ValidationError) {
        return sendProblem(request, reply, 'validation', error.message, { errors: error.errors });
      }
      if (error instanceof InvalidTransitionError) {
        return sendProblem(request, reply, 'invalid_state_transition', error.message, error.extra);
      }
      if (error instanceof DomainError) {
        return sendProblem(
          request,
          reply,
          DOMAIN_TO_PROBLEM[error.code] ?? 'internal',
          error.message,
          error.extra,
        );
      }
      if (error.validation && error.validationContext === 'params') {
        // Path parameters name a resource: one that cannot exist is not found, like any unknown id.
        return sendProblem(request, reply, 'not_found', `Nothing exists at ${request.url.split('?')[0]}.`);
      }
      if (error.validation) {
        // Through ValidationError, so a query or body with thousands of unknown names gets a capped list.
        const { message, errors } = new ValidationError(
          ajvToFieldErrors(error.validation as AjvError[], error.validationContext),
        );
        return sendProblem(request, reply, 'validation', message, { errors });
      }
      switch (error.code) {
        case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        case 'FST_ERR_CTP_INVALID_TYPE':
          return sendProblem(
            request,
            reply,
            'unsupported_media_type',
            'The body must be JSON, sent with Content-Type: application/json.',
          );
        case 'FST_ERR_CTP_BODY_TOO_LARGE':
          return sendProblem(request, reply, 'payload_too_large', 'The body must be at most 64 KiB.');
        case 'FST_ERR_CTP_EMPTY_JSON_BODY':
          return sendProblem(request, reply, 'malformed_json', 'The body is empty; send a JSON object.');
        case 'FST_ERR_CTP_INVALID_JSON_BODY':
          return sendProblem(request, reply, 'malformed_json', 'The body is not valid JSON.');
        case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
          return sendProblem(request, reply, 'bad_request', 'Content-Length does not match the body.');
      }
      if (error instanceof MalformedBodyError) {
        return sendProblem(request, reply, 'malformed_json', error.message);
      }
      if (error instanceof SyntaxError && error.statusCode === 400) {
        return sendProblem(request, reply, 'malformed_json', 'The body is not valid JSON.');
      }
      if (isDatabaseUnavailable(error)) {
        request.log.warn({ err: error }, 'database unavailable');
        reply.header('Retry-After', '5');
        return sendProblem(
          request,
          reply,
          'service_unavailable',
          'The database is not reachable right now; nothing was stored. Retry later.',
        );
      }
      const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
      if (status >= 400 && status < 500) {
        // Other client errors Fastify raises (bad headers, prototype poisoning, ...): their messages are safe.
        const code: ProblemCode =
          status === 404
            ? 'not_found'
            : status === 413
              ? 'payload_too_large'
              : status === 415
                ? 'unsupported_media_type'
                : 'bad_request';
        // The client's mistake, not the service's: its name, code and message, never a stack.
        request.log.info(
          { error: { type: error.name, code: error.code, message: error.message } },
          'client error',
        );
        return sendProblem(request, reply, code, error.message, {}, status);
      }
      if (status === 503) {
        reply.header('Retry-After', reply.getHeader('Retry-After') ?? '5');
        return sendProblem(request, reply, 'service_unavailable', 'The service is overloaded. Retry later.');
      }
      request.log.error({ err: error }, 'unhandled error');
      return sendInternalError(request, reply);
    });
  },
  { name: 'errors' },
);
