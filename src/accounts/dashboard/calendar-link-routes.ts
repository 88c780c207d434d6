// Settings > Your account > Calendar: "New link" gives a feed a new address (the page itself is account-routes.ts).
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../../platform/http/deps.js';
import { seeOther, text } from '../../platform/web/http.js';
import { calendarFeeds, type FeedScope } from '../calendar-feeds.js';
import { hidden, userOf, userPage } from './session.js';

export default async function calendarLinkRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  // "New link": the feed gets a new address; the old one answers 404 from now on.
  app.post('/settings/account/calendar', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const scope: FeedScope = text(request.body, 'feed') === 'brand' ? 'brand' : 'mine';
    await calendarFeeds(deps.database, user.userId, deps.config.publicUrl, scope);
    request.log.info({ userId: user.userId, feed: scope }, 'calendar feed address replaced');
    return seeOther(reply, '/dashboard/settings/account?done=calendar-rotated#calendar-title');
  });
}
