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
import { isDatabaseUnavailable } from '../platform/db/errors.js';
import type { RouteDeps } from '../platform/http/deps.js';
import { registerAssetRoutes } from '../platform/web/assets.js';
import { FORM_COOKIE } from '../platform/web/cookies.js';
import { csrfRefusal } from '../platform/web/csrf.js';
import { adminOnlyPage, errorPage } from '../platform/web/error-pages.js';
import { safeNext, seeOther, sendPage, withQuery } from '../platform/web/http.js';
import { notFound } from '../platform/web/not-found.js';
import { DomainError, NotFoundError } from '../shared/errors.js';
import webhookRoutes from '../webhooks/dashboard/routes.js';

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
    if (!request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      return formRefused(
        request,
        reply,
        415,
        'Unsupported form',
        'Forms must be sent as application/x-www-form-urlencoded.',
      );
    }
    const expected = access === 'public' ? request.cookies[FORM_COOKIE] : request.signedIn?.csrfToken;
    const refusal = csrfRefusal(request, expected, deps.config.publicUrl);
    if (refusal) {
      request.log.warn({ reason: refusal }, 'form post refused: possible cross-site request forgery');
      return formRefused(
        request,
        reply,
        403,
        'This form has expired',
        'For your safety it was not sent. Go back, reload the page and try again.',
      );
    }
  };
}

/** Errors as pages: not found, conflicts, refused forms, an unreachable database, and our own faults. */
async function dashboardErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const user = request.signedIn ?? null;
  if (error instanceof NotFoundError) return notFound(request, reply);
  if (error instanceof DomainError && error.code === 'conflict') {
    return sendPage(reply, errorPage('Conflict', error.message, user), 409);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return formRefused(
        request,
        reply,
        415,
        'Unsupported form',
        'Forms must be sent as application/x-www-form-urlencoded.',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return formRefused(
        request,
        reply,
        413,
        'Too much text',
        'The form holds more than 64 KiB. Shorten it and try again.',
      );
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    reply.header('Retry-After', '5');
    const page = errorPage(
      'Temporarily unavailable',
      'The database is not reachable right now. Try again in a moment.',
      user,
    );
    return sendPage(reply, page, 503);
  }
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status >= 400 && status < 500) {
    return sendPage(reply, errorPage('Bad request', 'The request could not be understood.', user), status);
  }
  request.log.error({ err: error }, 'unhandled error in the dashboard');
  const page = errorPage(
    'Something went wrong',
    'This is a fault on our side. Try again; if it persists, quote the request id.',
    user,
    String(request.id),
  );
  return sendPage(reply, page, 500);
}

/** The pages behind /dashboard, with a not-found page that knows who is signed in. */
async function dashboardPages(scope: FastifyInstance, { deps }: { deps: RouteDeps }) {
  scope.setNotFoundHandler(async (request, reply) => {
    await resolveSession(deps.database, request);
    return notFound(request, reply);
  });
  await scope.register(leadRoutes, { deps });
  await scope.register(customerRoutes, { deps });
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

const ADMIN_TASKS: [prefix: string, what: string][] = [
  ['/dashboard/settings/api-keys', 'manage API keys'],
  ['/dashboard/settings/webhooks', 'manage webhooks'],
  ['/dashboard/settings/forms', 'manage website forms'],
  ['/dashboard/settings/users', 'add, change or remove people'],
  ['/dashboard/settings/brand', 'change the brand’s settings'],
];

/** What an admin-only page is for, in words that finish "Only an admin can …". */
function adminTask(url: string): string {
  const path = url.split('?')[0] ?? '';
  const found = ADMIN_TASKS.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`));
  return found ? found[1] : 'do this';
}

function formRefused(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  title: string,
  message: string,
) {
  return sendPage(reply, errorPage(title, message, request.signedIn), status);
}
