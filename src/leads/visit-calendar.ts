// Visits as iCalendar (RFC 5545), written with ical-generator: the feeds GET /calendar/{token}.ics serves and the
// invitation a visit notice carries (iTIP, RFC 5546), sharing one UID per lead and the lead's visit_sequence, so a
// calendar that has both knows them for the same event. Times are written in UTC ("…Z"): unambiguous across a
// daylight-saving change, and every calendar shows them in its own zone (docs/calendar.md, "Times").
import ical, {
  type ICalCalendar,
  ICalCalendarMethod,
  type ICalEventData,
  ICalEventStatus,
} from 'ical-generator';
import type { Store } from '../platform/db/store.js';
import { type Locale, translator } from '../shared/i18n/index.js';
import { formatPhone } from '../shared/phone.js';
import {
  type CalendarVisitRow,
  selectCalendarVisitRows,
  selectNoticeBrand,
  selectNoticeUser,
} from './queries.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How far back a feed goes, and how long it keeps a cancelled visit. */
export const FEED_PAST_DAYS = 30;
/** How many visits one feed holds at most. */
const FEED_LIMIT = 2000;
/** A visit without a length lasts this long in a calendar. */
const DEFAULT_MINUTES = 60;
const PRODUCT = { company: 'lead-intake', product: 'visits', language: 'EN' } as const;

/** The UID of a lead's visit, the same in every feed and every notice, whatever its changes. */
export function visitUid(leadId: string): string {
  return `${leadId}@lead-intake`;
}

/** The visit's address on one line. */
export function visitAddress(row: CalendarVisitRow): string {
  const street = [row.street, row.street_number, row.street_number_addition].filter(Boolean).join(' ');
  const place = [row.postal_code, row.city].filter(Boolean).join(' ');
  return [street, place].filter(Boolean).join(', ');
}

/** Start and end of the visit at `start` (epoch ms). */
function visitTimes(start: number, durationMinutes: number | null): { start: Date; end: Date } {
  return { start: new Date(start), end: new Date(start + (durationMinutes ?? DEFAULT_MINUTES) * 60_000) };
}

/** The event every calendar gets of a visit: its UID, SEQUENCE, times, title and place. */
function baseEvent(row: CalendarVisitRow, start: number, cancelled: boolean): ICalEventData {
  return {
    id: visitUid(row.id),
    sequence: row.visit_sequence,
    ...visitTimes(start, row.duration_minutes),
    // When the visit was last changed: a feed written twice of the same data is the same text (its ETag).
    stamp: new Date(row.updated_at),
    lastModified: new Date(row.updated_at),
    summary: row.title,
    location: visitAddress(row),
    status: cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
  };
}

/** Whose visits a feed holds. */
export interface FeedOwner {
  userId: string;
  brandId: string;
  scope: 'mine' | 'brand';
}

/**
 * A feed: the visits of the user (scope mine) or of the whole brand (brand), planned from 30 days back on, a
 * cancelled one kept as STATUS:CANCELLED for 30 days after its cancellation. Another user's visits are never in a
 * user's own feed. Refreshed hourly (REFRESH-INTERVAL and X-PUBLISHED-TTL).
 */
export async function visitFeed(
  store: Store,
  owner: FeedOwner,
  publicUrl: string,
  now: number,
): Promise<string> {
  const brand = await selectNoticeBrand(store, owner.brandId);
  const user = await selectNoticeUser(store, owner.brandId, owner.userId);
  if (!brand || !user) throw new Error(`No active user ${owner.userId} of brand ${owner.brandId}`);
  const locale = (user.language === 'nl' ? 'nl' : 'en') satisfies Locale;
  const tr = translator(locale);
  const rows = await selectCalendarVisitRows(store, owner.brandId, {
    from: now - FEED_PAST_DAYS * DAY_MS,
    cancelledSince: now - FEED_PAST_DAYS * DAY_MS,
    ...(owner.scope === 'mine' ? { assigneeId: owner.userId } : {}),
    limit: FEED_LIMIT,
  });
  const name =
    owner.scope === 'mine'
      ? tr.t('calendar.feed.mine', { brand: brand.name, name: user.name ?? user.email })
      : tr.t('calendar.feed.brand', { brand: brand.name });
  const calendar: ICalCalendar = ical({ name, prodId: PRODUCT, ttl: 60 * 60 });
  const base = publicUrl.replace(/\/+$/, '');
  for (const row of rows) {
    const link = `${base}/dashboard/leads/${row.id}`;
    const description = [
      tr.t('calendar.event.customer', { name: row.customer_name }),
      row.customer_phone
        ? tr.t('calendar.event.phone', { phone: formatPhone(row.customer_phone, brand.default_country) })
        : '',
      tr.t('calendar.event.link', { link }),
    ].filter(Boolean);
    calendar.createEvent({
      ...baseEvent(row, row.scheduled_for!, row.status === 'cancelled'),
      description: description.join('\n'),
      url: link,
    });
  }
  return calendar.toString();
}

/**
 * The invitation of a visit notice (iTIP): METHOD:REQUEST with the visit as it is now, or METHOD:CANCEL of the
 * visit at `start` (the one the customer was told of), with the feed's UID and SEQUENCE. The organizer is the
 * brand at the mail's sender address; the attendee the customer.
 */
export function visitInvitation(
  row: CalendarVisitRow,
  options: { method: 'REQUEST' | 'CANCEL'; start: number; brandName: string; from?: string | undefined },
): string {
  const cancelled = options.method === 'CANCEL';
  const calendar = ical({
    prodId: PRODUCT,
    method: cancelled ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  const organizer = senderAddress(options.from);
  calendar.createEvent({
    ...baseEvent(row, options.start, cancelled),
    stamp: new Date(),
    summary: `${row.title} (${options.brandName})`,
    ...(organizer ? { organizer: { name: options.brandName, email: organizer } } : {}),
    ...(row.customer_email
      ? { attendees: [{ name: row.customer_name, email: row.customer_email, rsvp: false }] }
      : {}),
  });
  return calendar.toString();
}

/** The address in MAIL_FROM ("Acme <leads@acme.example>" or a bare address). */
function senderAddress(from: string | undefined): string | undefined {
  if (!from) return undefined;
  const match = /<([^<>\s]+@[^<>\s]+)>/.exec(from) ?? /^\s*([^<>\s]+@[^<>\s]+)\s*$/.exec(from);
  return match?.[1];
}
