// The numbers behind the dashboard's picture: leads received per day, and how many sit in each state.
import { sql } from 'kysely';
import type { Store } from '../db/store.js';
import { ALL_STATUSES, type Status } from './states.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface LeadStats {
  /** One entry per UTC day, oldest first, ending today; days without leads have count 0. */
  perDay: { date: string; count: number }[];
  /** Every state, in lifecycle order, with how many of the brand's leads are in it now. */
  perStatus: { status: Status; count: number }[];
}

export async function leadStats(
  { db }: Store,
  brandId: string,
  days = 30,
  now = Date.now(),
): Promise<LeadStats> {
  const today = Math.floor(now / DAY_MS);
  const firstDay = today - (days - 1);
  // Integer division by a day's milliseconds is the UTC day number on both dialects. Naming every stage lets
  // both planners use the (brand_id, stage, received_at) index.
  const day = sql<number>`received_at / ${sql.lit(DAY_MS)}`;
  const [dayRows, statusRows] = await Promise.all([
    db
      .selectFrom('leads')
      .select([day.as('day'), (eb) => eb.fn.countAll<number>().as('n')])
      .where('brand_id', '=', brandId)
      .where('spam', '=', 0)
      .where('stage', 'in', ['lead', 'work', 'closed'])
      .where('received_at', '>=', firstDay * DAY_MS)
      .groupBy(day)
      .execute(),
    db
      .selectFrom('leads')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('brand_id', '=', brandId)
      .where('spam', '=', 0)
      .groupBy('status')
      .execute(),
  ]);
  const byDay = new Map(dayRows.map((r) => [Number(r.day), Number(r.n)]));
  const byStatus = new Map(statusRows.map((r) => [r.status, Number(r.n)]));
  return {
    perDay: Array.from({ length: days }, (_, i) => {
      const dayNumber = firstDay + i;
      return {
        date: new Date(dayNumber * DAY_MS).toISOString().slice(0, 10),
        count: byDay.get(dayNumber) ?? 0,
      };
    }),
    perStatus: ALL_STATUSES.map((status) => ({ status, count: byStatus.get(status) ?? 0 })),
  };
}
