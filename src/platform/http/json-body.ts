// JSON request bodies: a parser that names refused prototype keys, refuses what JSON.parse would silently change
// (invalid UTF-8, duplicate keys), and the answer to a missing body.
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ValidationError } from '../../shared/errors.js';
import { decodeUtf8Body, MalformedBodyError } from './body-text.js';
import { findDuplicateKey, hasDuplicateKey } from './json-duplicate-key.js';
import { sendProblem } from './problem.js';

/**
 * A JSON request body as its value; undefined for an empty body. Throws what the error handler turns into the
 * right problem: MalformedBodyError (not UTF-8, duplicate key), a 400 SyntaxError (not JSON), ValidationError
 * (__proto__ or constructor.prototype).
 */
export function parseJsonBody(body: Buffer): unknown {
  const text = decodeUtf8Body(body);
  // An empty body is no body: fine for actions that take none (rotate-secret, resend); a route that needs
  // one says so in the preValidation hook below.
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    if (error instanceof SyntaxError && !/prototype property/.test(error.message)) {
      throw Object.assign(error, { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
    }
    const field = /"__proto__"\s*:/.test(text) ? '__proto__' : 'constructor';
    throw new ValidationError([{ field, message: 'is not allowed: it could alter object prototypes' }]);
  }
  // JSON.parse keeps the last of two equal keys: the first value would be dropped without a word.
  const duplicate = hasDuplicateKey(text, parsed) ? findDuplicateKey(text) : undefined;
  if (duplicate !== undefined) {
    const shown = duplicate.length > 100 ? `${duplicate.slice(0, 100)}…` : duplicate;
    throw new MalformedBodyError(
      `duplicate key ${JSON.stringify(shown)} in the JSON body: send each key once per object.`,
    );
  }
  return parsed;
}

/** Call on the root instance before any route or plugin, so every JSON route gets this parser and hook. */
export function registerJsonBody(app: FastifyInstance): void {
  // JSON only: no text/plain fallback that would turn a mislabelled body into a string.
  app.removeContentTypeParser('text/plain');
  // Our own JSON parser so a body carrying __proto__ or constructor.prototype is told which key is refused,
  // instead of Fastify's "invalid JSON".
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  // A POST or PATCH that carries no JSON at all is told what to send, not that its (absent) body is invalid.
  app.addHook('preValidation', async (request, reply) => {
    if (
      request.body === undefined &&
      (request.method === 'POST' || request.method === 'PATCH') &&
      request.routeOptions.schema?.body
    ) {
      // A route whose body is all optional (config.bodyOptional) takes no body as an empty object.
      if ((request.routeOptions.config as { bodyOptional?: boolean } | undefined)?.bodyOptional) {
        request.body = {};
        return;
      }
      if (/^application\/json\b/i.test(String(request.headers['content-type'] ?? ''))) {
        return sendProblem(request, reply, 'malformed_json', 'The body is empty; send a JSON object.');
      }
      return sendProblem(
        request,
        reply,
        'unsupported_media_type',
        'Send a JSON body with Content-Type: application/json.',
      );
    }
  });
}
