// JSON request bodies: a parser that names refused prototype keys, and the answer to a missing body.
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ValidationError } from '../domain/errors.js';
import { sendProblem } from './problem.js';

/** Call on the root instance before any route or plugin, so every JSON route gets this parser and hook. */
export function registerJsonBody(app: FastifyInstance): void {
  // JSON only: no text/plain fallback that would turn a mislabelled body into a string.
  app.removeContentTypeParser('text/plain');
  // Our own JSON parser so a body carrying __proto__ or constructor.prototype is told which key is refused,
  // instead of Fastify's "invalid JSON".
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    // An empty body is no body: fine for actions that take none (rotate-secret, resend); a route that needs
    // one says so in the preValidation hook below.
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      if (error instanceof SyntaxError && !/prototype property/.test(error.message)) {
        done(Object.assign(error, { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' }), undefined);
        return;
      }
      const field = /"__proto__"\s*:/.test(text) ? '__proto__' : 'constructor';
      done(
        new ValidationError([{ field, message: 'is not allowed: it could alter object prototypes' }]),
        undefined,
      );
    }
  });

  // A POST or PATCH that carries no JSON at all is told what to send, not that its (absent) body is invalid.
  app.addHook('preValidation', async (request, reply) => {
    if (
      request.body === undefined &&
      (request.method === 'POST' || request.method === 'PATCH') &&
      request.routeOptions.schema?.body
    ) {
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
