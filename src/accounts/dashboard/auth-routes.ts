// Before sign-in: the root redirect, first-run setup, sign-in and sign-out, accepting an invitation.
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { publicFormToken } from '../../platform/web/csrf.js';
import { errorPage } from '../../platform/web/error-pages.js';
import { safeNext, seeOther, sendPage, text } from '../../platform/web/http.js';
import { rememberLocaleChoice, requestLocale } from '../../platform/web/messages.js';
import { notFound } from '../../platform/web/not-found.js';
import { DomainError, type FieldError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { isLocale, type Locale, type MessageKey, translator } from '../../shared/i18n/index.js';
import { findBrand } from '../brands.js';
import { acceptInvite, findInvite } from '../invites.js';
import { completeSetup, isSetupPending, isSetupTokenValid, SetupClosedError, soleBrand } from '../setup.js';
import { signIn } from '../sign-in.js';
import { hidden, publicPage, startSession, stopSession, userPage } from './session.js';
import { invitePage, setupLinkNeededPage, setupPage, signInPage } from './views/auth.js';

// Setup and invitation links carry a one-time secret in the query string: keep those URLs out of the access log.
const quiet = 'warn';

const signInMessages: Record<string, MessageKey> = {
  'signed-out': 'signIn.notice.signedOut',
  'password-reset': 'signIn.notice.passwordReset',
};

/** The language of a page before sign-in; a `?lang=` choice is remembered for the next pages. */
function pageLocale(request: FastifyRequest, reply: FastifyReply): Locale {
  rememberLocaleChoice(request, reply);
  return requestLocale(request, null);
}

/** The language a form sent (the select), when it is one; else undefined and the domain's default applies. */
function sentLanguage(body: unknown): Locale | undefined {
  const value = text(body, 'language');
  return isLocale(value) ? value : undefined;
}

// Setup is a 404 once anyone has an account, whatever the token.
async function showSetup(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const { database } = deps;
  if (!(await isSetupPending(database))) return notFound(request, reply);
  const token = text(request.query, 'token');
  const locale = pageLocale(request, reply);
  if (!(await isSetupTokenValid(database, token))) return sendPage(reply, setupLinkNeededPage(locale), 403);
  const existing = await soleBrand(database);
  const values: Record<string, string> = existing
    ? { brandName: existing.name, country: existing.defaultCountry }
    : {};
  return sendPage(
    reply,
    setupPage({ locale, csrfToken: publicFormToken(request, reply), setupToken: token, values, errors: [] }),
  );
}

async function postSetup(
  deps: RouteDeps,
  log: FastifyBaseLogger,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const { database } = deps;
  const body = request.body;
  const values = {
    brandName: text(body, 'brandName'),
    country: text(body, 'country'),
    email: text(body, 'email'),
    name: text(body, 'name'),
    language: text(body, 'language'),
  };
  const locale = pageLocale(request, reply);
  try {
    const user = await completeSetup(database, {
      token: text(body, 'token'),
      brandName: values.brandName,
      country: values.country,
      email: values.email,
      name: values.name,
      // The select always sends one; without it (an old page, a script), nl for a Dutch company, else en.
      language: values.language,
      password: text(body, 'password'),
      passwordConfirmation: text(body, 'passwordConfirmation'),
    });
    log.info({ userId: user.id, brandId: user.brandId }, 'first-run setup completed');
    await startSession(database, request, reply, user.id);
    return seeOther(reply, '/dashboard/start?done=welcome');
  } catch (error) {
    if (error instanceof SetupClosedError) {
      if (!(await isSetupPending(database))) return notFound(request, reply);
      return sendPage(reply, setupLinkNeededPage(locale), 403);
    }
    if (!(error instanceof ValidationError)) throw error;
    const page = setupPage({
      locale,
      csrfToken: publicFormToken(request, reply),
      setupToken: text(body, 'token'),
      values,
      errors: error.errors,
    });
    return sendPage(reply, page, 422);
  }
}

async function showSignIn(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const next = safeNext(text(request.query, 'next'));
  if (request.signedIn) return reply.redirect(next ?? '/dashboard/leads');
  const locale = pageLocale(request, reply);
  const message = signInMessages[text(request.query, 'notice')];
  return sendPage(
    reply,
    signInPage({
      locale,
      csrfToken: publicFormToken(request, reply),
      email: '',
      next,
      message: message ? notice(translator(locale).t(message), 'info') : undefined,
      setupPending: await isSetupPending(deps.database),
      forgotPassword: deps.config.mail !== null,
    }),
  );
}

async function postSignIn(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const body = request.body;
  const email = text(body, 'email');
  const next = safeNext(text(body, 'next'));
  const result = await signIn(deps.database, {
    email,
    password: text(body, 'password'),
    address: request.ip,
  });
  if (result.outcome === 'signed-in') {
    await startSession(deps.database, request, reply, result.user.id);
    return seeOther(reply, next ?? '/dashboard/leads');
  }
  const throttled = result.outcome === 'throttled';
  if (throttled) {
    reply.header('Retry-After', String(result.retryAfterSeconds));
    request.log.warn({ address: request.ip }, 'sign-in throttled');
  }
  const seconds = throttled ? result.retryAfterSeconds : 0;
  const locale = pageLocale(request, reply);
  const tr = translator(locale);
  const message = throttled
    ? notice(tr.t('signIn.throttled', { seconds }), 'error')
    : notice(tr.t('signIn.wrong'), 'error');
  const page = signInPage({
    locale,
    csrfToken: publicFormToken(request, reply),
    email,
    next,
    message,
    setupPending: false,
    forgotPassword: deps.config.mail !== null,
  });
  return sendPage(reply, page, throttled ? 429 : 401);
}

/** The invitation's page: its email and brand, the form to choose a name and password (with its problems). */
async function showInvite(
  deps: RouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  refused?: { name: string; language: Locale | undefined; errors: FieldError[] },
) {
  const locale = pageLocale(request, reply);
  const invite = await findInvite(deps.database, token);
  if (!invite) return invalidInvite(request, reply);
  const brand = await findBrand(deps.database, invite.brandId);
  const page = invitePage({
    locale,
    language: refused?.language ?? brand?.language ?? locale,
    csrfToken: publicFormToken(request, reply),
    inviteToken: token,
    email: invite.email,
    brandName: brand?.name ?? '',
    ...(refused ? { name: refused.name } : {}),
    errors: refused?.errors ?? [],
  });
  return sendPage(reply, page, refused ? 422 : 200);
}

async function acceptInvitation(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const body = request.body;
  const token = text(body, 'token');
  try {
    const user = await acceptInvite(deps.database, {
      token,
      name: text(body, 'name'),
      language: sentLanguage(body),
      password: text(body, 'password'),
      passwordConfirmation: text(body, 'passwordConfirmation'),
    });
    await startSession(deps.database, request, reply, user.id);
    return seeOther(reply, '/dashboard/leads');
  } catch (error) {
    if (error instanceof NotFoundError) return invalidInvite(request, reply);
    if (error instanceof ValidationError) {
      return showInvite(deps, request, reply, token, {
        name: text(body, 'name'),
        language: sentLanguage(body),
        errors: error.errors,
      });
    }
    if (error instanceof DomainError && error.code === 'conflict') {
      const page = errorPage(
        { title: 'invite.accountExists.title', message: 'invite.accountExists.message' },
        null,
        pageLocale(request, reply),
      );
      return sendPage(reply, page, 409);
    }
    throw error;
  }
}

export default async function authRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/', { schema: hidden, config: publicPage }, async (request, reply) => {
    if (request.signedIn) return reply.redirect('/dashboard/leads');
    return reply.redirect((await isSetupPending(deps.database)) ? '/setup' : '/sign-in');
  });
  const secret = { schema: hidden, config: publicPage, logLevel: quiet } as const;
  app.get('/setup', secret, (request, reply) => showSetup(deps, request, reply));
  app.post('/setup', secret, (request, reply) => postSetup(deps, app.log, request, reply));
  app.get('/sign-in', { schema: hidden, config: publicPage }, (request, reply) =>
    showSignIn(deps, request, reply),
  );
  app.post('/sign-in', { schema: hidden, config: publicPage }, (request, reply) =>
    postSignIn(deps, request, reply),
  );
  app.post('/sign-out', { schema: hidden, config: userPage }, async (request, reply) => {
    await stopSession(deps.database, request, reply);
    return seeOther(reply, '/sign-in?notice=signed-out');
  });
  app.get('/invite', secret, (request, reply) =>
    showInvite(deps, request, reply, text(request.query, 'token')),
  );
  app.post('/invite', secret, (request, reply) => acceptInvitation(deps, request, reply));
}

function invalidInvite(request: FastifyRequest, reply: FastifyReply) {
  rememberLocaleChoice(request, reply);
  return notFound(request, reply, 'invite.invalid');
}
