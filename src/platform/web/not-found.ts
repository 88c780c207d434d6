import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MessageKey } from '../../shared/i18n/index.js';
import { errorPage } from './error-pages.js';
import { sendPage } from './http.js';
import { requestLocale } from './messages.js';

/** The dashboard's 404: the same answer for "does not exist" and "belongs to another brand". */
export function notFound(
  request: FastifyRequest,
  reply: FastifyReply,
  message: MessageKey = 'error.notFound.message',
): FastifyReply {
  const page = errorPage(
    { title: 'error.notFound.title', message },
    request.signedIn,
    requestLocale(request, request.signedIn),
  );
  return sendPage(reply, page, 404);
}
