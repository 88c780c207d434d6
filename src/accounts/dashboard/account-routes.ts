// Settings > Your account (every signed-in person): the language they read lead-intake in, and changing one's own
// password.
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { doneNotice, notice } from '../../platform/web/components.js';
import { seeOther, sendPage, text } from '../../platform/web/http.js';
import { ValidationError } from '../../shared/errors.js';
import { isLocale, type MessageKey, translator } from '../../shared/i18n/index.js';
import { calendarFeeds } from '../calendar-feeds.js';
import { changePassword } from '../passwords.js';
import { setUserLanguage } from '../users.js';
import calendarLinkRoutes from './calendar-link-routes.js';
import { hidden, userOf, userPage } from './session.js';
import { accountPage } from './views/account.js';

const doneMessages: Record<string, MessageKey> = {
  'password-changed': 'account.notice.passwordChanged',
  'language-saved': 'account.notice.languageSaved',
  'calendar-rotated': 'account.notice.calendarRotated',
};

export default async function accountRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const { database } = deps;

  app.get('/settings/account', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const message = doneNotice(request, translator(user.locale), doneMessages);
    const calendars = await calendarFeeds(database, user.userId, deps.config.publicUrl);
    return sendPage(reply, accountPage({ user, errors: [], message, calendars }));
  });

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
      return sendPage(reply, accountPage({ user, errors: [], language }), 422);
    }
    request.log.info({ userId: user.userId, language: value }, 'user language changed in the dashboard');
    return seeOther(reply, '/dashboard/settings/account?done=language-saved');
  });

  app.post('/settings/account/password', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const body = request.body;
    try {
      const result = await changePassword(database, {
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
        return sendPage(reply, accountPage({ user, errors: [], message }), 429);
      }
      request.log.info(
        { userId: user.userId, signedOut: result.signedOut },
        'password changed in the dashboard',
      );
      return seeOther(reply, '/dashboard/settings/account?done=password-changed');
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return sendPage(reply, accountPage({ user, errors: error.errors }), 422);
    }
  });
}
