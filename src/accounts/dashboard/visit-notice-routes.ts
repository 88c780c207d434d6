// Settings > Brand > Visit notices (admins): turning customers' visit notices on or off (the card is
// views/visit-notices.ts, shown on the brand page).
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { seeOther } from '../../platform/web/http.js';
import { setVisitNotices } from '../calendar-feeds.js';
import { adminPage, hidden, userOf } from './session.js';

export default async function visitNoticeRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.post('/settings/brand/visit-notices', { schema: hidden, config: adminPage }, async (request, reply) => {
    const user = userOf(request);
    const body = request.body as Record<string, unknown> | undefined;
    // The checkbox sends "on" after the hidden "off" when ticked: the last value counts.
    const raw = body?.visitNotices;
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    const on = value === 'on';
    await setVisitNotices(deps.database, user.brandId, on);
    request.log.info({ userId: user.userId, visitNotices: on }, 'visit notices changed in the dashboard');
    return seeOther(reply, '/dashboard/settings/brand?done=saved#visit-notices');
  });
}
