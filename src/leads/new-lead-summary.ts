// The daily new-lead summary: each user who chose it gets, at 08:00 in the brand's time zone, one mail listing the
// leads received since the previous 08:00 there (spam, erased leads and those they typed in themselves left out),
// and no mail when there were none. The window runs from one 08:00 to the next on the brand's clock, so it is 23 or
// 25 hours across a daylight-saving change and no lead falls between two summaries.
//
// Every instance runs the job (background.ts, each minute). Which day is due is decided by the app's clock; a user's
// day is claimed by inserting its new_lead_summaries row (unique per user and day) in the write that queues the
// mail, so instances never send it twice. Only the latest day is due: after an outage longer than a day the days
// missed are not sent. The mail is written when it is sent (a send-time mail, src/mail/send-time.ts), so what it
// says of the leads is never stored: an erasure in between leaves the lead out, and a summary left with no lead is
// not sent.

import { leadAttachments } from '../attachments/attachments.js';
import { queueSendTimeEmail } from '../mail/outbox.js';
import { mailLocale, type RenderedMail } from '../mail/templates/layout.js';
import { newLeadSummaryMail, type SummaryLead } from '../mail/templates/new-lead-summary.js';
import type { Store, Tx } from '../platform/db/store.js';
import { defaultBrandLocale, translator } from '../shared/i18n/index.js';
import { newId } from '../shared/ids.js';
import { addDays, dayIn, zonedTimeToUtc } from '../shared/time-zones.js';
import type { Submitted } from './input.js';
import { NEW_LEAD_MAIL_SETTINGS } from './new-lead-mail.js';
import {
  countSummaryLeads,
  insertSummaryUnlessDone,
  type SummaryReaderRow,
  selectSummary,
  selectSummaryLeads,
  selectSummaryReaders,
} from './queries.js';

/** The kind of the summary's outbox rows; names its renderer (renderNewLeadSummary). */
export const NEW_LEAD_SUMMARY_MAIL = 'new_lead_summary';

/** The hour of the brand's day the summary is sent at. */
export const SUMMARY_HOUR = 8;

/** At most this many leads are listed; the mail says how many more there were and links the list. */
export const SUMMARY_MAX_LEADS = 50;

/** The instant `day` shows SUMMARY_HOUR:00 in `zone`. */
function summaryTime(zone: string, day: string): number {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return zonedTimeToUtc(zone, { year, month, day: date, hour: SUMMARY_HOUR, minute: 0 });
}

export interface DueSummary {
  /** The brand's day whose 08:00 ends the window, 'YYYY-MM-DD'. */
  day: string;
  /** 08:00 the day before, and 08:00 on `day`: the leads received in between are listed. */
  start: number;
  end: number;
}

/** The summary due at `now` in `zone`: the one of the latest 08:00 there at or before `now`. */
export function dueSummary(zone: string, now: number): DueSummary {
  let day = dayIn(zone, now);
  let end = summaryTime(zone, day);
  if (end > now) {
    day = addDays(day, -1);
    end = summaryTime(zone, day);
  }
  return { day, start: summaryTime(zone, addDays(day, -1)), end };
}

/**
 * Claims and queues one user's due summary in one write: false when it was not theirs to send (another instance
 * claimed it, or there was nothing to list; either way the day is done).
 */
async function queueSummary(store: Store, reader: SummaryReaderRow, due: DueSummary, now: number) {
  return store.write(async (tx) => {
    const id = newId('newLeadSummary', now);
    const row = {
      id,
      brand_id: reader.brand_id,
      user_id: reader.id,
      day: due.day,
      window_start: due.start,
      window_end: due.end,
      created_at: now,
    };
    if (!(await insertSummaryUnlessDone(tx, row))) return false;
    if (!(await countSummaryLeads(tx, reader.brand_id, reader.id, due.start, due.end))) return false;
    const summary = await selectSummary(tx, id);
    if (!summary) return false;
    const tr = translator(
      mailLocale([summary.language, summary.brand_language], defaultBrandLocale(summary.default_country)),
    );
    // What the dashboard lists for it should it fail: no lead's data (the sent mail's subject is written anew).
    const subject = tr.t('mail.newLeadSummary.queuedSubject', {
      brand: summary.brand_name,
      since: tr.dateTime(due.start, summary.time_zone),
    });
    // The outbox runs on the real clock, its worker's: the mail is due at once, whatever clock chose the day.
    await queueSendTimeEmail(
      tx,
      { brandId: reader.brand_id, kind: NEW_LEAD_SUMMARY_MAIL, recipient: reader.email, subject, ref: id },
      Date.now(),
    );
    return true;
  });
}

/**
 * Queues the daily summaries due at `now` (the app's clock): for each user who chose them, unless their day is done,
 * or they chose after its 08:00 (their first summary comes the next morning). Nothing when email is off. Returns how
 * many mails it queued.
 */
export async function runNewLeadSummaries(store: Store, now: number): Promise<number> {
  if (!store.mail) return 0;
  let queued = 0;
  for (const reader of await selectSummaryReaders(store)) {
    const due = dueSummary(reader.time_zone, now);
    if (reader.new_lead_mail_at > due.end) continue;
    if (reader.last_day !== null && reader.last_day >= due.day) continue;
    if (await queueSummary(store, reader, due, now)) queued++;
  }
  return queued;
}

/**
 * Writes a summary's mail when the worker sends it (a SendTimeRenderer): null, so it is dropped unsent, when its
 * reader is gone or no longer wants it, or none of its leads is left (erased, or marked as spam).
 */
export async function renderNewLeadSummary(tx: Tx, ref: string): Promise<RenderedMail | null> {
  const summary = await selectSummary(tx, ref);
  if (!summary || summary.disabled_at !== null || summary.new_lead_mail !== 'daily' || !tx.mail) return null;
  const { brand_id: brandId, user_id: userId, window_start: start, window_end: end } = summary;
  const total = await countSummaryLeads(tx, brandId, userId, start, end);
  if (!total) return null;
  const rows = await selectSummaryLeads(tx, brandId, userId, start, end, SUMMARY_MAX_LEADS);
  const publicUrl = tx.mail.publicUrl;
  const leads: SummaryLead[] = [];
  for (const row of rows) {
    const files = row.attachment_count ? (await leadAttachments(tx, row.id)).map((a) => a.fileName) : [];
    leads.push({
      title: row.title,
      description: row.description,
      priority: row.priority,
      contact: JSON.parse(row.submitted) as Partial<Submitted>,
      receivedAt: row.received_at,
      files,
      link: `${publicUrl}/dashboard/leads/${row.id}`,
    });
  }
  return newLeadSummaryMail({
    locale: mailLocale(
      [summary.language, summary.brand_language],
      defaultBrandLocale(summary.default_country),
    ),
    brandName: summary.brand_name,
    brandCountry: summary.default_country,
    timeZone: summary.time_zone,
    windowStart: start,
    windowEnd: end,
    leads,
    total,
    listLink: `${publicUrl}/dashboard/leads`,
    settingsLink: `${publicUrl}${NEW_LEAD_MAIL_SETTINGS}`,
  });
}
