// Errors Fastify raises before any route or hook runs (a malformed URL, an over-long path parameter): without
// this they would go out as Fastify's own JSON, not in our problem shape and without X-Request-Id.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { sendInternalError, sendProblem } from './problem.js';

export function sendFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('X-Request-Id', request.id);
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return sendProblem(request, reply, 'bad_request', 'The URL is not valid: check its percent-encoding.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // No identifier is that long, so no such resource exists: the contract's 404 for an unknown id.
      return sendProblem(request, reply, 'not_found', 'No resource has an identifier that long.');
    default:
      request.log.error({ err: error }, 'framework error');
      return sendInternalError(request, reply);
  }
}
