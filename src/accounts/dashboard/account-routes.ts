// Settings > Your account (every signed-in person): changing one's own password.
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { html } from '../../platform/web/html.js';
import { seeOther, sendPage, text } from '../../platform/web/http.js';
import { ValidationError } from '../../shared/errors.js';
import { changePassword } from '../passwords.js';
import { userOf } from './session.js';
import { accountPage } from './views/account.js';

const hidden = { hide: true };
const userPage = { page: 'user' as const };

export default async function accountRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const { database } = deps;

  app.get('/settings/account', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const done = text(request.query, 'done');
    const message =
      done === 'password-changed'
        ? notice('Your password is changed. You are signed out everywhere else; you stay signed in here.')
        : undefined;
    return sendPage(reply, accountPage({ user, errors: [], message }));
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
        const message = notice(
          html`Too many wrong current passwords; try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
          'error',
        );
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
