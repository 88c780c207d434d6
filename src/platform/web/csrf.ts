// Cross-site request forgery defence for every dashboard form post:
// - signed-in forms carry the session's synchronizer token (stored with the session, per session);
// - forms used before sign-in (setup, sign-in, invitation) carry a token that must match a cookie set with
//   the form (double submit), since there is no session yet to hold it;
// - and, when the browser says where the post came from (Origin, Sec-Fetch-Site), it must be this site.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isSecretShaped, newSecret, secretsEqual } from '../../shared/secrets.js';
import { cookieOptions, FORM_COOKIE } from './cookies.js';
import { field } from './http.js';

export const CSRF_FIELD = '_csrf';

/** The token for a form shown before sign-in; sets its cookie when the browser has none yet. */
export function publicFormToken(request: FastifyRequest, reply: FastifyReply): string {
  const existing = request.cookies[FORM_COOKIE];
  if (isSecretShaped(existing)) return existing;
  const token = newSecret();
  reply.setCookie(FORM_COOKIE, token, cookieOptions(request));
  return token;
}

function sameOrigin(request: FastifyRequest, origin: string, publicUrl: string): boolean {
  const own = `${request.protocol}://${request.host}`;
  return origin === own || origin === new URL(publicUrl).origin;
}

/**
 * Null when the post may proceed, otherwise why it is refused (for the log; the user sees one message). The token
 * is read from `fields`: the form body, or the query of a multipart form's action URL.
 */
export function csrfRefusal(
  request: FastifyRequest,
  expected: string | undefined,
  publicUrl: string,
  fields: unknown = request.body,
): string | null {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site is ${site}`;
  const origin = request.headers.origin;
  if (origin !== undefined && !sameOrigin(request, origin, publicUrl))
    return `Origin ${origin} is not this site`;
  const given = field(fields, CSRF_FIELD);
  if (!isSecretShaped(expected)) return 'no token to compare with (cookie missing)';
  if (typeof given !== 'string' || !secretsEqual(given, expected)) return 'form token missing or wrong';
  return null;
}
