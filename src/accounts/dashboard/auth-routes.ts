// Before sign-in: the root redirect, first-run setup, sign-in and sign-out, accepting an invitation.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { publicFormToken } from '../../platform/web/csrf.js';
import { errorPage } from '../../platform/web/error-pages.js';
import { html } from '../../platform/web/html.js';
import { safeNext, seeOther, sendPage, text } from '../../platform/web/http.js';
import { notFound } from '../../platform/web/not-found.js';
import { DomainError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { findBrand } from '../brands.js';
import { acceptInvite, findInvite } from '../invites.js';
import { completeSetup, isSetupPending, isSetupTokenValid, SetupClosedError, soleBrand } from '../setup.js';
import { signIn } from '../sign-in.js';
import { startSession, stopSession } from './session.js';
import { invitePage, setupLinkNeededPage, setupPage, signInPage } from './views/auth.js';

const hidden = { hide: true };
const publicPage = { page: 'public' as const };
// Setup and invitation links carry a one-time secret in the query string: keep those URLs out of the access log.
const quiet = 'warn';

export default async function authRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const { database } = deps;

  app.get('/', { schema: hidden, config: publicPage }, async (request, reply) => {
    if (request.signedIn) return reply.redirect('/dashboard/leads');
    return reply.redirect((await isSetupPending(database)) ? '/setup' : '/sign-in');
  });

  // Setup is a 404 once anyone has an account, whatever the token.
  app.get('/setup', { schema: hidden, config: publicPage, logLevel: quiet }, async (request, reply) => {
    if (!(await isSetupPending(database))) return notFound(request, reply);
    const token = text(request.query, 'token');
    if (!(await isSetupTokenValid(database, token))) return sendPage(reply, setupLinkNeededPage(), 403);
    const existing = await soleBrand(database);
    const values: Record<string, string> = existing
      ? { brandName: existing.name, country: existing.defaultCountry }
      : {};
    return sendPage(
      reply,
      setupPage({ csrfToken: publicFormToken(request, reply), setupToken: token, values, errors: [] }),
    );
  });

  app.post('/setup', { schema: hidden, config: publicPage, logLevel: quiet }, async (request, reply) => {
    const body = request.body;
    const values = {
      brandName: text(body, 'brandName'),
      country: text(body, 'country'),
      email: text(body, 'email'),
      name: text(body, 'name'),
    };
    try {
      const user = await completeSetup(database, {
        token: text(body, 'token'),
        brandName: values.brandName,
        country: values.country,
        email: values.email,
        name: values.name,
        password: text(body, 'password'),
        passwordConfirmation: text(body, 'passwordConfirmation'),
      });
      app.log.info({ userId: user.id, brandId: user.brandId }, 'first-run setup completed');
      await startSession(database, request, reply, user.id);
      return seeOther(reply, '/dashboard/settings/api-keys?welcome=1');
    } catch (error) {
      if (error instanceof SetupClosedError) {
        if (!(await isSetupPending(database))) return notFound(request, reply);
        return sendPage(reply, setupLinkNeededPage(), 403);
      }
      if (!(error instanceof ValidationError)) throw error;
      const page = setupPage({
        csrfToken: publicFormToken(request, reply),
        setupToken: text(body, 'token'),
        values,
        errors: error.errors,
      });
      return sendPage(reply, page, 422);
    }
  });

  const signInMessages: Record<string, string> = {
    'signed-out': 'You are signed out.',
    'password-reset':
      'Your password is changed and you are signed out everywhere. Sign in with the new password.',
  };

  app.get('/sign-in', { schema: hidden, config: publicPage }, async (request, reply) => {
    const next = safeNext(text(request.query, 'next'));
    if (request.signedIn) return reply.redirect(next ?? '/dashboard/leads');
    const message = signInMessages[text(request.query, 'notice')];
    return sendPage(
      reply,
      signInPage({
        csrfToken: publicFormToken(request, reply),
        email: '',
        next,
        message: message ? notice(message, 'info') : undefined,
        setupPending: await isSetupPending(database),
        forgotPassword: deps.config.mail !== null,
      }),
    );
  });

  app.post('/sign-in', { schema: hidden, config: publicPage }, async (request, reply) => {
    const body = request.body;
    const email = text(body, 'email');
    const next = safeNext(text(body, 'next'));
    const result = await signIn(database, { email, password: text(body, 'password'), address: request.ip });
    if (result.outcome === 'signed-in') {
      await startSession(database, request, reply, result.user.id);
      return seeOther(reply, next ?? '/dashboard/leads');
    }
    const throttled = result.outcome === 'throttled';
    if (throttled) {
      reply.header('Retry-After', String(result.retryAfterSeconds));
      request.log.warn({ address: request.ip }, 'sign-in throttled');
    }
    const seconds = throttled ? result.retryAfterSeconds : 0;
    const message = throttled
      ? notice(
          html`Too many failed attempts for this account from your network; try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
          'error',
        )
      : notice('Email or password is wrong.', 'error');
    const page = signInPage({
      csrfToken: publicFormToken(request, reply),
      email,
      next,
      message,
      setupPending: false,
      forgotPassword: deps.config.mail !== null,
    });
    return sendPage(reply, page, throttled ? 429 : 401);
  });

  app.post('/sign-out', { schema: hidden, config: { page: 'user' } }, async (request, reply) => {
    await stopSession(database, request, reply);
    return seeOther(reply, '/sign-in?notice=signed-out');
  });

  app.get('/invite', { schema: hidden, config: publicPage, logLevel: quiet }, async (request, reply) => {
    const token = text(request.query, 'token');
    const invite = await findInvite(database, token);
    if (!invite) return invalidInvite(request, reply);
    const brand = await findBrand(database, invite.brandId);
    return sendPage(
      reply,
      invitePage({
        csrfToken: publicFormToken(request, reply),
        inviteToken: token,
        email: invite.email,
        brandName: brand?.name ?? '',
        errors: [],
      }),
    );
  });

  app.post('/invite', { schema: hidden, config: publicPage, logLevel: quiet }, async (request, reply) => {
    const body = request.body;
    const token = text(body, 'token');
    try {
      const user = await acceptInvite(database, {
        token,
        name: text(body, 'name'),
        password: text(body, 'password'),
        passwordConfirmation: text(body, 'passwordConfirmation'),
      });
      await startSession(database, request, reply, user.id);
      return seeOther(reply, '/dashboard/leads');
    } catch (error) {
      if (error instanceof NotFoundError) return invalidInvite(request, reply);
      if (error instanceof ValidationError) {
        const invite = await findInvite(database, token);
        if (!invite) return invalidInvite(request, reply);
        const brand = await findBrand(database, invite.brandId);
        const page = invitePage({
          csrfToken: publicFormToken(request, reply),
          inviteToken: token,
          email: invite.email,
          brandName: brand?.name ?? '',
          name: text(body, 'name'),
          errors: error.errors,
        });
        return sendPage(reply, page, 422);
      }
      if (error instanceof DomainError && error.code === 'conflict') {
        const page = errorPage(
          'Account exists',
          'Someone already has an account with this email. Sign in instead.',
          null,
        );
        return sendPage(reply, page, 409);
      }
      throw error;
    }
  });
}

function invalidInvite(request: FastifyRequest, reply: FastifyReply) {
  return notFound(
    request,
    reply,
    'This invitation link is not valid: it was used, withdrawn, or it expired. Ask the person who invited you for a new one.',
  );
}
