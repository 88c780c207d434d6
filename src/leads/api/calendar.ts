// GET /calendar/{token}.ics (contract "Calendars and visit notices"): a user's feed of their visits, or an admin's
// of all the brand's, opened by the secret in its address alone, for calendar apps that subscribe to it. An
// unknown, replaced or disabled user's token answers 404, the same for each. An ETag (a hash of the feed) and 304
// spare the apps that poll it hourly the body while nothing changed.
import type { FastifyInstance } from 'fastify';
import { findCalendarFeed } from '../../accounts/calendar-feeds.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { etagOf, ifNoneMatchHits } from '../../platform/http/plugins/http-conventions.js';
import { visitFeed } from '../visit-calendar.js';

const FEED_FILE = /^([A-Za-z0-9_-]{1,100})\.ics$/;

export default async function calendarRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/calendar/:file', { schema: { hide: true } }, async (request, reply) => {
    const { file } = request.params as { file: string };
    const token = FEED_FILE.exec(file)?.[1];
    const feed = token ? await findCalendarFeed(deps.database, token) : undefined;
    // Never stored by a shared cache, nor its address sent on from a link in it.
    reply.header('Cache-Control', 'private, no-cache').header('Referrer-Policy', 'no-referrer');
    if (!feed) {
      return reply
        .code(404)
        .type('text/plain; charset=utf-8')
        .send('No calendar at this address. Copy its current address from Settings > Your account.\n');
    }
    const body = await visitFeed(deps.database, feed, deps.config.publicUrl, Date.now());
    const etag = etagOf(body);
    reply.header('ETag', etag);
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply
      .type('text/calendar; charset=utf-8')
      .header('Content-Disposition', 'inline; filename="visits.ics"')
      .send(body);
  });
}
