// The dashboard: server-rendered pages for people, in its own encapsulated scope. Cookies, form bodies, the
// session, CSRF checks, security headers and HTML error pages apply here only; the JSON API is untouched
// (a form body sent to /v1 is still a 415).
import type { AddressInfo } from 'node:net';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import accountRoutes from '../accounts/dashboard/account-routes.js';
import authRoutes from '../accounts/dashboard/auth-routes.js';
import passwordResetRoutes from '../accounts/dashboard/password-reset-routes.js';
import { resolveSession } from '../accounts/dashboard/session.js';
import settingsRoutes from '../accounts/dashboard/settings-routes.js';
import { createSetupLink } from '../accounts/setup.js';
import { isAdmin, listAdmins } from '../accounts/users.js';
import customerRoutes from '../customers/dashboard/routes.js';
import formRoutes from '../forms/dashboard/routes.js';
import leadRoutes from '../leads/dashboard/routes.js';
import customerMergeRoutes from '../personal-data/dashboard/merge-routes.js';
import personalDataRoutes from '../personal-data/dashboard/routes.js';
import { isDatabaseUnavailable } from '../platform/db/errors.js';
import type { RouteDeps } from '../platform/http/deps.js';
import { registerAssetRoutes } from '../platform/web/assets.js';
import { FORM_COOKIE } from '../platform/web/cookies.js';
import { csrfRefusal } from '../platform/web/csrf.js';
import { adminOnlyPage, type ErrorText, errorPage } from '../platform/web/error-pages.js';
import { safeNext, seeOther, sendPage, withQuery } from '../platform/web/http.js';
import { requestLocale } from '../platform/web/messages.js';
import { notFound } from '../platform/web/not-found.js';
import { DomainError, NotFoundError } from '../shared/errors.js';
import type { MessageKey } from '../shared/i18n/index.js';
import webhookRoutes from '../webhooks/dashboard/routes.js';
import searchRoutes from './search-routes.js';
import startRoutes from './start-routes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A form post with files (multipart/form-data, read by the handler); its CSRF token is in the query (_csrf). */
    multipart?: boolean;
  }
}

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // The page script asks the dashboard itself (New lead: which customer the email or phone belongs to).
  "connect-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The URL the setup link starts with: the configured public URL, or where we really listen when the port was 0. */
function baseUrl(app: FastifyInstance, deps: RouteDeps): string {
  const address = app.server.address() as AddressInfo | string | null;
  if (deps.config.port !== 0 || !address || typeof address === 'string') return deps.config.publicUrl;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
}

/** Headers of every dashboard answer; pages hold customer data and one-time secrets, so no cache keeps them. */
async function securityHeaders(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  reply.header('X-Frame-Options', 'DENY');
  // same-origin, not no-referrer: browsers must still send Origin on our own form posts (CSRF check).
  reply.header('Referrer-Policy', 'same-origin');
  reply.header('Cross-Origin-Opener-Policy', 'same-origin');
  if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
    // Pages hold customer data and one-time secrets: never store them in a cache.
    reply.header('Cache-Control', 'no-store');
  }
  return payload;
}

/** Who may see a page (config.page: public, user, admin), and the checks of every form post (type, CSRF). */
function pageAccess(deps: RouteDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const access = request.routeOptions.config.page;
    if (!access) return;
    if (access !== 'public' && !request.signedIn) {
      if (request.method === 'GET') {
        return reply.redirect(withQuery('/sign-in', { next: safeNext(request.url) }));
      }
      return seeOther(reply, '/sign-in');
    }
    // Before the CSRF check and before any handler: a member learns nothing from an admin page, and changes nothing.
    if (access === 'admin' && request.signedIn && !isAdmin(request.signedIn)) {
      const user = request.signedIn;
      const admins = (await listAdmins(deps.database, user.brandId)).map((admin) => admin.email);
      return sendPage(reply, adminOnlyPage(user, adminTask(request.url), admins), 403);
    }
    if (request.method !== 'POST') return;
    // A route that takes files (config.multipart) reads its body itself, streamed: its token is in the query.
    const files = request.routeOptions.config.multipart === true;
    const type = files ? 'multipart/form-data' : 'application/x-www-form-urlencoded';
    if (!request.headers['content-type']?.startsWith(type)) {
      return formRefused(request, reply, 415, UNSUPPORTED_FORM);
    }
    const expected = access === 'public' ? request.cookies[FORM_COOKIE] : request.signedIn?.csrfToken;
    const refusal = csrfRefusal(
      request,
      expected,
      deps.config.publicUrl,
      files ? request.query : request.body,
    );
    if (refusal) {
      request.log.warn({ reason: refusal }, 'form post refused: possible cross-site request forgery');
      return formRefused(request, reply, 403, {
        title: 'error.expired.title',
        message: 'error.expired.message',
      });
    }
  };
}

/** Errors as pages: not found, conflicts, refused forms, an unreachable database, and our own faults. */
async function dashboardErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof NotFoundError) return notFound(request, reply);
  if (error instanceof DomainError && error.code === 'conflict') {
    // Conflicts the dashboard's own checks do not catch first (a race with another tab): said in general words.
    request.log.info({ err: error }, 'conflict in the dashboard');
    return formRefused(request, reply, 409, {
      title: 'error.conflict.title',
      message: 'error.conflict.message',
    });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return formRefused(request, reply, 415, UNSUPPORTED_FORM);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return formRefused(request, reply, 413, {
        title: 'error.tooLarge.title',
        message: 'error.tooLarge.message',
      });
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    reply.header('Retry-After', '5');
    return formRefused(request, reply, 503, {
      title: 'error.unavailable.title',
      message: 'error.unavailable.message',
    });
  }
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status >= 400 && status < 500) {
    return formRefused(request, reply, status, {
      title: 'error.badRequest.title',
      message: 'error.badRequest.message',
    });
  }
  request.log.error({ err: error }, 'unhandled error in the dashboard');
  const text: ErrorText = { title: 'error.internal.title', message: 'error.internal.message' };
  const locale = requestLocale(request, request.signedIn);
  return sendPage(reply, errorPage(text, request.signedIn, locale, String(request.id)), 500);
}

/** The pages behind /dashboard, with a not-found page that knows who is signed in. */
async function dashboardPages(scope: FastifyInstance, { deps }: { deps: RouteDeps }) {
  scope.setNotFoundHandler(async (request, reply) => {
    await resolveSession(deps.database, request);
    return notFound(request, reply);
  });
  await scope.register(leadRoutes, { deps });
  await scope.register(customerRoutes, { deps });
  await scope.register(searchRoutes, { deps });
  await scope.register(startRoutes, { deps });
  await scope.register(customerMergeRoutes, { deps });
  await scope.register(personalDataRoutes, { deps });
  await scope.register(settingsRoutes, { deps });
  await scope.register(accountRoutes, { deps });
  await scope.register(webhookRoutes, { deps });
  await scope.register(formRoutes, { deps });
}

export default async function dashboardPlugin(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  await app.register(cookie);
  await app.register(formbody);
  app.decorateRequest('signedIn', null);
  app.addHook('onSend', securityHeaders);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.page) await resolveSession(deps.database, request);
  });
  app.addHook('preHandler', pageAccess(deps));
  app.setErrorHandler(dashboardErrors);

  registerAssetRoutes(app);
  await app.register(authRoutes, { deps });
  await app.register(passwordResetRoutes, { deps });
  await app.register(dashboardPages, { deps, prefix: '/dashboard' });

  // First run: while nobody has an account, every instance that starts prints its own one-time setup link.
  app.addHook('onListen', async () => {
    const url = await createSetupLink(deps.database, baseUrl(app, deps));
    if (url) {
      app.log.warn(
        { setupUrl: url },
        `First run: open ${url} to create your brand and owner account. The link works once.`,
      );
    }
  });
}

const ADMIN_TASKS: [prefix: string, what: MessageKey][] = [
  ['/dashboard/settings/api-keys', 'error.adminOnly.task.apiKeys'],
  ['/dashboard/settings/webhooks', 'error.adminOnly.task.webhooks'],
  ['/dashboard/settings/forms', 'error.adminOnly.task.forms'],
  ['/dashboard/settings/users', 'error.adminOnly.task.users'],
  ['/dashboard/settings/brand', 'error.adminOnly.task.brand'],
  ['/dashboard/start', 'error.adminOnly.task.start'],
];

/** What an admin-only page is for, in words that finish "Only an admin can …". */
function adminTask(url: string): MessageKey {
  const path = url.split('?')[0] ?? '';
  const found = ADMIN_TASKS.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`));
  return found ? found[1] : 'error.adminOnly.task.other';
}

const UNSUPPORTED_FORM: ErrorText = {
  title: 'error.unsupportedForm.title',
  message: 'error.unsupportedForm.message',
};

/** An error page in the asker's language (the user's, signed in; else the browser's). */
function formRefused(request: FastifyRequest, reply: FastifyReply, status: number, text: ErrorText) {
  const page = errorPage(text, request.signedIn, requestLocale(request, request.signedIn));
  return sendPage(reply, page, status);
}
