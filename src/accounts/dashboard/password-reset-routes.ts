// "Forgot password" (when email is on) and the one-time reset link it mails.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { publicFormToken } from '../../platform/web/csrf.js';
import { html } from '../../platform/web/html.js';
import { seeOther, sendPage, text } from '../../platform/web/http.js';
import { notFound } from '../../platform/web/not-found.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
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

export default async function passwordResetRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const { database } = deps;
  const mailOn = deps.config.mail !== null;

  app.get('/forgot-password', { schema: hidden, config: publicPage }, async (request, reply) => {
    if (!mailOn) return sendPage(reply, forgotPasswordOffPage());
    if (text(request.query, 'sent')) return sendPage(reply, forgotPasswordSentPage());
    return sendPage(
      reply,
      forgotPasswordPage({ csrfToken: publicFormToken(request, reply), email: '', errors: [] }),
    );
  });

  app.post('/forgot-password', { schema: hidden, config: publicPage }, async (request, reply) => {
    if (!mailOn) return sendPage(reply, forgotPasswordOffPage());
    const email = text(request.body, 'email').trim();
    const page = (errors: { field: string; message: string }[], message?: ReturnType<typeof notice>) =>
      forgotPasswordPage({ csrfToken: publicFormToken(request, reply), email, errors, message });
    if (!isValidEmail(email)) {
      return sendPage(reply, page([{ field: 'email', message: 'must be a valid email address' }]), 422);
    }
    const result = await requestPasswordReset(database, { email, address: request.ip });
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
  });

  app.get(
    '/reset-password',
    { schema: hidden, config: publicPage, logLevel: quiet },
    async (request, reply) => {
      const token = text(request.query, 'token');
      const owner = await findPasswordReset(database, token);
      if (!owner) return invalidLink(request, reply);
      return sendPage(
        reply,
        resetPasswordPage({
          csrfToken: publicFormToken(request, reply),
          token,
          email: owner.email,
          errors: [],
        }),
      );
    },
  );

  app.post(
    '/reset-password',
    { schema: hidden, config: publicPage, logLevel: quiet },
    async (request, reply) => {
      const body = request.body;
      const token = text(body, 'token');
      try {
        const owner = await resetPassword(database, {
          token,
          password: text(body, 'password'),
          passwordConfirmation: text(body, 'passwordConfirmation'),
        });
        request.log.info({ userId: owner.id }, 'password reset with an emailed link');
        return seeOther(reply, '/sign-in?notice=password-reset');
      } catch (error) {
        if (error instanceof NotFoundError) return invalidLink(request, reply);
        if (!(error instanceof ValidationError)) throw error;
        const owner = await findPasswordReset(database, token);
        if (!owner) return invalidLink(request, reply);
        const page = resetPasswordPage({
          csrfToken: publicFormToken(request, reply),
          token,
          email: owner.email,
          errors: error.errors,
        });
        return sendPage(reply, page, 422);
      }
    },
  );
}

function invalidLink(request: FastifyRequest, reply: FastifyReply) {
  return notFound(
    request,
    reply,
    'This password reset link is not valid: it was used, it expired, or a newer one was sent. Ask for a new one under "Forgot your password?" on the sign-in page.',
  );
}
