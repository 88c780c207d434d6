// Settings > Your account (every signed-in person): the language they read lead-intake in, the new-lead email they
// get (every lead, a daily summary at 08:00, none), and changing one's own password.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { doneNotice, notice } from '../../platform/web/components.js';
import { seeOther, sendPage, text } from '../../platform/web/http.js';
import { ValidationError } from '../../shared/errors.js';
import { isLocale, type MessageKey, translator } from '../../shared/i18n/index.js';
import { calendarFeeds } from '../calendar-feeds.js';
import { changePassword } from '../passwords.js';
import type { SessionUser } from '../sessions.js';
import { findNewLeadMail, setNewLeadMail, setUserLanguage } from '../users.js';
import calendarLinkRoutes from './calendar-link-routes.js';
import { hidden, userOf, userPage } from './session.js';
import { type AccountView, accountPage } from './views/account.js';

const doneMessages: Record<string, MessageKey> = {
  'password-changed': 'account.notice.passwordChanged',
  'language-saved': 'account.notice.languageSaved',
  'new-lead-mail-saved': 'account.notice.newLeadMailSaved',
  'calendar-rotated': 'account.notice.calendarRotated',
};

/** The new-lead email card's state: the user's choice, and whether email is on. */
async function newLeadMailOf(deps: RouteDeps, user: SessionUser): Promise<AccountView['newLeadMail']> {
  return {
    value: await findNewLeadMail(deps.database, user.brandId, user.userId),
    emailOn: deps.config.mail !== null,
  };
}

// Each person chooses their own new-lead email; nobody chooses someone else's.
async function chooseNewLeadMail(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const value = text(request.body, 'newLeadMail');
  try {
    await setNewLeadMail(deps.database, user.brandId, user.userId, value);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const newLeadMail = { ...(await newLeadMailOf(deps, user)), error: error.errors[0] };
    return sendPage(reply, accountPage({ user, errors: [], newLeadMail }), 422);
  }
  request.log.info({ userId: user.userId, newLeadMail: value }, 'new-lead email chosen in the dashboard');
  return seeOther(reply, '/dashboard/settings/account?done=new-lead-mail-saved');
}

export default async function accountRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const { database } = deps;

  app.get('/settings/account', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const message = doneNotice(request, translator(user.locale), doneMessages);
    const newLeadMail = await newLeadMailOf(deps, user);
    const calendars = await calendarFeeds(database, user.userId, deps.config.publicUrl);
    return sendPage(reply, accountPage({ user, errors: [], message, newLeadMail, calendars }));
  });

  app.post('/settings/account/new-lead-mail', { schema: hidden, config: userPage }, (request, reply) =>
    chooseNewLeadMail(deps, request, reply),
  );

  await app.register(calendarLinkRoutes, { deps });

  // The user's own language: this page after the redirect, and every page and mail after it, speak it.
  app.post('/settings/account/language', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const value = text(request.body, 'language');
    try {
      await setUserLanguage(database, user.brandId, user.userId, value);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const language = { value: isLocale(value) ? value : user.locale, error: error.errors[0] };
      const newLeadMail = await newLeadMailOf(deps, user);
      return sendPage(reply, accountPage({ user, errors: [], language, newLeadMail }), 422);
    }
    request.log.info({ userId: user.userId, language: value }, 'user language changed in the dashboard');
    return seeOther(reply, '/dashboard/settings/account?done=language-saved');
  });

  app.post('/settings/account/password', { schema: hidden, config: userPage }, (request, reply) =>
    changeOwnPassword(deps, request, reply),
  );
}

// Each person changes their own password: other sessions end, this one stays.
async function changeOwnPassword(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const body = request.body;
  try {
    const result = await changePassword(deps.database, {
      userId: user.userId,
      sessionId: user.sessionId,
      currentPassword: text(body, 'currentPassword'),
      password: text(body, 'password'),
      passwordConfirmation: text(body, 'passwordConfirmation'),
    });
    if (result.outcome === 'throttled') {
      const seconds = result.retryAfterSeconds;
      reply.header('Retry-After', String(seconds));
      request.log.warn({ userId: user.userId }, 'password change throttled');
      const message = notice(translator(user.locale).t('account.password.throttled', { seconds }), 'error');
      const newLeadMail = await newLeadMailOf(deps, user);
      return sendPage(reply, accountPage({ user, errors: [], message, newLeadMail }), 429);
    }
    request.log.info(
      { userId: user.userId, signedOut: result.signedOut },
      'password changed in the dashboard',
    );
    return seeOther(reply, '/dashboard/settings/account?done=password-changed');
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const newLeadMail = await newLeadMailOf(deps, user);
    return sendPage(reply, accountPage({ user, errors: error.errors, newLeadMail }), 422);
  }
}
