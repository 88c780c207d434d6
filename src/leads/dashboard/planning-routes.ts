// Planning: the week's visits per day and person, My visits, and changing a work item's visit.
import type { FastifyInstance } from 'fastify';
import { hidden, userOf, userPage } from '../../accounts/dashboard/session.js';
import { displayName, listUsers } from '../../accounts/users.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { sendPage, text } from '../../platform/web/http.js';
import type { FieldError } from '../../shared/errors.js';
import { addDays, dayIn, isDay, mondayOf, mondayOfIsoWeek, startOfDay } from '../../shared/time-zones.js';
import { listVisits } from '../index.js';
import { myVisitsPage, type Person, planningPage } from './views/visits.js';

/** The people a visit can be given to: the brand's users who can sign in, by name. */
export async function peopleOf(deps: RouteDeps, brandId: string): Promise<Person[]> {
  const users = await listUsers(deps.database, brandId);
  return users
    .map((u) => ({ id: u.id, name: displayName(u) }))
    .sort((a, b) => a.name.localeCompare(b.name, 'en'));
}

/** The week asked for: ?week=2026-W48, or ?from=2026-11-25 (its week); this week otherwise (and on a bad value). */
function weekAsked(query: unknown, today: string): { monday: string; errors: FieldError[] } {
  const week = text(query, 'week').trim();
  const from = text(query, 'from').trim();
  const errors: FieldError[] = [];
  let monday = mondayOf(today);
  if (week) {
    const found = mondayOfIsoWeek(week);
    if (found) monday = found;
    else {
      errors.push({
        field: 'week',
        message: 'must be an ISO week such as 2026-W48',
        text: { key: 'planning.error.week' },
      });
    }
  } else if (from) {
    if (isDay(from)) monday = mondayOf(from);
    else {
      errors.push({
        field: 'from',
        message: 'must be a date such as 2026-11-23',
        text: { key: 'visit.error.date', values: { example: '2026-11-23' } },
      });
    }
  }
  return { monday, errors };
}

export default async function planningRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const { database } = deps;

  // ?week=2026-W48 or ?from=2026-11-25 (its week); this week otherwise. Weeks run Monday to Sunday in the brand's
  // time zone.
  app.get('/planning', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const zone = user.timeZone;
    const today = dayIn(zone, Date.now());
    const { monday, errors } = weekAsked(request.query, today);
    const [people, visits] = await Promise.all([
      peopleOf(deps, user.brandId),
      listVisits(database, user.brandId, {
        from: startOfDay(zone, monday),
        to: startOfDay(zone, addDays(monday, 7)),
      }),
    ]);
    const page = planningPage({
      user,
      monday,
      today,
      people,
      visits: visits.filter((v) => v.status !== 'cancelled'),
      errors,
    });
    return sendPage(reply, page, errors.length ? 422 : 200);
  });

  app.get('/my-visits', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const visits = await listVisits(database, user.brandId, {
      from: startOfDay(user.timeZone, dayIn(user.timeZone, Date.now())),
      assigneeId: user.userId,
      limit: 200,
    });
    const open = visits.filter((v) => v.status !== 'completed' && v.status !== 'cancelled');
    return sendPage(reply, myVisitsPage({ user, visits: open }));
  });
}
