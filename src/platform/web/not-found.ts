import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorPage } from './error-pages.js';
import { sendPage } from './http.js';

/** The dashboard's 404: the same answer for "does not exist" and "belongs to another brand". */
export function notFound(
  request: FastifyRequest,
  reply: FastifyReply,
  message = 'This page does not exist, or you have no access to it.',
): FastifyReply {
  return sendPage(reply, errorPage('Not found', message, request.signedIn), 404);
}
