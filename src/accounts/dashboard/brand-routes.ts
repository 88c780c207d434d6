// Settings > Brand (admins): the time zone the dashboard shows and takes times in.
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { seeOther, sendPage, text } from '../../platform/web/http.js';
import { ValidationError } from '../../shared/errors.js';
import { setBrandTimeZone } from '../brands.js';
import { userOf } from './session.js';
import { brandSettingsPage } from './views/brand-settings.js';

const hidden = { hide: true };
const adminPage = { page: 'admin' as const };

export default async function brandRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/settings/brand', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const message =
      text(request.query, 'done') === 'saved' ? notice('The brand settings are saved.') : undefined;
    return sendPage(reply, brandSettingsPage({ user, timeZone: user.timeZone, errors: [], message }));
  });

  app.post('/settings/brand', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const timeZone = text(request.body, 'timeZone');
    try {
      await setBrandTimeZone(deps.database, user.brandId, timeZone);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return sendPage(reply, brandSettingsPage({ user, timeZone, errors: error.errors }), 422);
    }
    request.log.info({ userId: user.userId, timeZone }, 'brand time zone changed in the dashboard');
    return seeOther(reply, '/dashboard/settings/brand?done=saved');
  });
}
