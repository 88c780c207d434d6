// The dashboard's two cookies and the flags they share.
import type { FastifyRequest } from 'fastify';

/** The session token (see domain/sessions.ts). */
export const SESSION_COOKIE = 'li_session';
/** The double-submit token of forms used before sign-in (see csrf.ts). */
export const FORM_COOKIE = 'li_form';

/** HttpOnly, SameSite=Lax, whole site; Secure when the request came over HTTPS (directly or via a trusted proxy). */
export function cookieOptions(request: FastifyRequest, maxAgeSeconds?: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: request.protocol === 'https',
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}
