// Posts a form refused for their origin, kept so the business sees them (Settings > Forms, each form's page): a
// count per form, origin and UTC day, for 30 days. Bounded: an origin is kept as sent up to 300 characters, and
// past 50 origins on one form in one day the others are counted together as "(other)".
import type { Store } from '../platform/db/store.js';
import * as q from './queries.js';

const DAY_MS = 24 * 60 * 60 * 1000;
export const REFUSALS_KEPT_DAYS = 30;
const MAX_ORIGINS_A_DAY = 50;
const MAX_ORIGIN = 300;
export const NO_ORIGIN = '(none)';
export const OTHER_ORIGINS = '(other)';

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Counts a refused post (origin as the request sent it; undefined: none) and drops counts older than 30 days. */
export async function recordRefusal(
  store: Store,
  formId: string,
  sent: string | undefined,
  now: number = Date.now(),
): Promise<void> {
  const day = dayOf(now);
  let origin = sent === undefined || sent === '' ? NO_ORIGIN : sent.slice(0, MAX_ORIGIN);
  if (
    !(await q.refusalExists(store, formId, origin, day)) &&
    (await q.countRefusalOrigins(store, formId, day)) >= MAX_ORIGINS_A_DAY
  ) {
    origin = OTHER_ORIGINS;
  }
  await store.write(async (tx) => {
    await q.countRefusal(tx, { formId, origin, day, at: now });
    await q.pruneRefusals(tx, dayOf(now - REFUSALS_KEPT_DAYS * DAY_MS));
  });
}

export interface RefusedOrigin {
  origin: string;
  count: number;
  lastAt: string;
}

/** The refused posts of the last 30 days by origin, the latest first, and their total. */
export async function formRefusals(
  store: Store,
  brandId: string,
  formId: string,
  now: number = Date.now(),
): Promise<{ total: number; origins: RefusedOrigin[] }> {
  const rows = await q.selectRefusals(store, brandId, formId, dayOf(now - (REFUSALS_KEPT_DAYS - 1) * DAY_MS));
  const origins = rows.map((r) => ({
    origin: r.origin,
    count: Number(r.count),
    lastAt: new Date(Number(r.last_at)).toISOString(),
  }));
  return { total: origins.reduce((n, o) => n + o.count, 0), origins };
}
