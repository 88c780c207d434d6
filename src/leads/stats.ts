// The numbers behind the dashboard's picture: leads received per day, and how many sit in each state.
import type { Store } from '../platform/db/store.js';
import { addDays, dayIn, startOfDay } from '../shared/time-zones.js';
import { selectLeadCounts } from './queries.js';
import { ALL_STATUSES, type Status } from './states.js';

/** Leads are counted per quarter hour in SQL, then the quarters summed per day of the brand's time zone. */
const QUARTER_MS = 15 * 60 * 1000;

export interface LeadStats {
  /** One entry per day of the brand's time zone, oldest first, ending today; days without leads have count 0. */
  perDay: { date: string; count: number }[];
  /** Every state, in lifecycle order, with how many of the brand's leads are in it now. */
  perStatus: { status: Status; count: number }[];
}

export async function leadStats(
  store: Store,
  brandId: string,
  days = 30,
  now = Date.now(),
  timeZone = 'UTC',
): Promise<LeadStats> {
  const today = dayIn(timeZone, now);
  const firstDay = addDays(today, -(days - 1));
  const from = startOfDay(timeZone, firstDay);
  // Every zone's offset is a whole number of quarter hours, so each quarter falls in one day of the zone.
  const [quarterRows, statusRows] = await selectLeadCounts(store, brandId, from, QUARTER_MS);
  const byDay = new Map<string, number>();
  for (const r of quarterRows) {
    const day = dayIn(timeZone, Number(r.quarter) * QUARTER_MS);
    byDay.set(day, (byDay.get(day) ?? 0) + Number(r.n));
  }
  const byStatus = new Map(statusRows.map((r) => [r.status, Number(r.n)]));
  return {
    perDay: Array.from({ length: days }, (_, i) => {
      const date = addDays(firstDay, i);
      return { date, count: byDay.get(date) ?? 0 };
    }),
    perStatus: ALL_STATUSES.map((status) => ({ status, count: byStatus.get(status) ?? 0 })),
  };
}
