// "Forgot password" (when email is on) and the one-time reset link it mails.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { publicFormToken } from '../../platform/web/csrf.js';
import { html } from '../../platform/web/html.js';
import { seeOther, sendPage, text } from '../../platform/web/http.js';
import { notFound } from '../../platform/web/not-found.js';
import { type FieldError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { isValidEmail } from '../../shared/values.js';
import { findPasswordReset, requestPasswordReset, resetPassword } from '../password-resets.js';
import {
  forgotPasswordOffPage,
  forgotPasswordPage,
  forgotPasswordSentPage,
  resetPasswordPage,
} from './views/password-reset.js';

const hidden = { hide: true };
const publicPage = { page: 'public' as const };
// Reset links carry a one-time secret in the query string: keep those URLs out of the access log.
const quiet = 'warn';

async function askForLink(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  if (deps.config.mail === null) return sendPage(reply, forgotPasswordOffPage());
  const email = text(request.body, 'email').trim();
  const page = (errors: { field: string; message: string }[], message?: ReturnType<typeof notice>) =>
    forgotPasswordPage({ csrfToken: publicFormToken(request, reply), email, errors, message });
  if (!isValidEmail(email)) {
    return sendPage(reply, page([{ field: 'email', message: 'must be a valid email address' }]), 422);
  }
  const result = await requestPasswordReset(deps.database, { email, address: request.ip });
  if (result.outcome === 'throttled') {
    const minutes = Math.ceil(result.retryAfterSeconds / 60);
    reply.header('Retry-After', String(result.retryAfterSeconds));
    request.log.warn({ address: request.ip }, 'password reset requests throttled');
    const message = notice(
      html`Too many links were asked for, for this address or from your network; try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      'error',
    );
    return sendPage(reply, page([], message), 429);
  }
  // The same answer whether or not the address has an account.
  return seeOther(reply, '/forgot-password?sent=1');
}

/** The page to choose a new password, with the problems of the last try; invalid links are a 404. */
async function showReset(
  deps: RouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  refused?: FieldError[],
) {
  const owner = await findPasswordReset(deps.database, token);
  if (!owner) return invalidLink(request, reply);
  const page = resetPasswordPage({
    csrfToken: publicFormToken(request, reply),
    token,
    email: owner.email,
    errors: refused ?? [],
  });
  return sendPage(reply, page, refused ? 422 : 200);
}

async function chooseNewPassword(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const body = request.body;
  const token = text(body, 'token');
  try {
    const owner = await resetPassword(deps.database, {
      token,
      password: text(body, 'password'),
      passwordConfirmation: text(body, 'passwordConfirmation'),
    });
    request.log.info({ userId: owner.id }, 'password reset with an emailed link');
    return seeOther(reply, '/sign-in?notice=password-reset');
  } catch (error) {
    if (error instanceof NotFoundError) return invalidLink(request, reply);
    if (!(error instanceof ValidationError)) throw error;
    return showReset(deps, request, reply, token, error.errors);
  }
}

export default async function passwordResetRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/forgot-password', { schema: hidden, config: publicPage }, async (request, reply) => {
    if (deps.config.mail === null) return sendPage(reply, forgotPasswordOffPage());
    if (text(request.query, 'sent')) return sendPage(reply, forgotPasswordSentPage());
    return sendPage(
      reply,
      forgotPasswordPage({ csrfToken: publicFormToken(request, reply), email: '', errors: [] }),
    );
  });
  app.post('/forgot-password', { schema: hidden, config: publicPage }, (request, reply) =>
    askForLink(deps, request, reply),
  );
  const secret = { schema: hidden, config: publicPage, logLevel: quiet } as const;
  app.get('/reset-password', secret, (request, reply) =>
    showReset(deps, request, reply, text(request.query, 'token')),
  );
  app.post('/reset-password', secret, (request, reply) => chooseNewPassword(deps, request, reply));
}

function invalidLink(request: FastifyRequest, reply: FastifyReply) {
  return notFound(
    request,
    reply,
    'This password reset link is not valid: it was used, it expired, or a newer one was sent. Ask for a new one under "Forgot your password?" on the sign-in page.',
  );
}
