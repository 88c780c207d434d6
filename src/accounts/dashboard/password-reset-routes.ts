// "Forgot password" (when email is on) and the one-time reset link it mails.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { publicFormToken } from '../../platform/web/csrf.js';
import { seeOther, sendPage, text } from '../../platform/web/http.js';
import { rememberLocaleChoice, requestLocale } from '../../platform/web/messages.js';
import { notFound } from '../../platform/web/not-found.js';
import { type FieldError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { type Locale, translator } from '../../shared/i18n/index.js';
import { isValidEmail } from '../../shared/values.js';
import { findPasswordReset, requestPasswordReset, resetPassword } from '../password-resets.js';
import { hidden, publicPage } from './session.js';
import {
  forgotPasswordOffPage,
  forgotPasswordPage,
  forgotPasswordSentPage,
  resetPasswordPage,
} from './views/password-reset.js';

// Reset links carry a one-time secret in the query string: keep those URLs out of the access log.
const quiet = 'warn';

/** The language of a page before sign-in; a `?lang=` choice is remembered for the next pages. */
function pageLocale(request: FastifyRequest, reply: FastifyReply): Locale {
  rememberLocaleChoice(request, reply);
  return requestLocale(request, null);
}

async function askForLink(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const locale = pageLocale(request, reply);
  if (deps.config.mail === null) return sendPage(reply, forgotPasswordOffPage(locale));
  const email = text(request.body, 'email').trim();
  const page = (errors: FieldError[], message?: ReturnType<typeof notice>) =>
    forgotPasswordPage({ locale, csrfToken: publicFormToken(request, reply), email, errors, message });
  if (!isValidEmail(email)) {
    const error = {
      field: 'email',
      message: 'must be a valid email address',
      text: { key: 'validation.email' },
    } as const;
    return sendPage(reply, page([error]), 422);
  }
  const result = await requestPasswordReset(deps.database, { email, address: request.ip });
  if (result.outcome === 'throttled') {
    const minutes = Math.ceil(result.retryAfterSeconds / 60);
    reply.header('Retry-After', String(result.retryAfterSeconds));
    request.log.warn({ address: request.ip }, 'password reset requests throttled');
    const message = notice(translator(locale).t('forgotPassword.throttled', { minutes }), 'error');
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
  const locale = pageLocale(request, reply);
  const owner = await findPasswordReset(deps.database, token);
  if (!owner) return invalidLink(request, reply);
  const page = resetPasswordPage({
    locale,
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
    const locale = pageLocale(request, reply);
    if (deps.config.mail === null) return sendPage(reply, forgotPasswordOffPage(locale));
    if (text(request.query, 'sent')) return sendPage(reply, forgotPasswordSentPage(locale));
    return sendPage(
      reply,
      forgotPasswordPage({ locale, csrfToken: publicFormToken(request, reply), email: '', errors: [] }),
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
  rememberLocaleChoice(request, reply);
  return notFound(request, reply, 'resetPassword.invalid');
}
