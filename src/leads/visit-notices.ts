// Telling people of a visit (contract "Calendars and visit notices"). Each change of a visit (its time, length,
// assignee or address, its cancellation) moves the lead's visit_sequence, in the change's own transaction, and:
// - the customer who gave an email gets a visit notice (Settings > Brand, on by default): queued in that
//   transaction, written by the mail worker when it sends it, from the visit as it is then. A lead has at most one
//   notice waiting: a change while one waits queues nothing more, so two quick changes send one mail of the
//   latest, never a stale one. The worker writes down what it told (visit_notice_*) with the lead locked, and a
//   notice with nothing new to tell is dropped: never twice for one change. Never for spam.
// - the colleague the visit is given to, or whose visit moves, gets a mail in their language, unless they made the
//   change themselves.
import { queueEmail, queueSendTimeEmail, unclaimedEmailQueued, userMailLocale } from '../mail/outbox.js';
import { mailLocale, type RenderedMail } from '../mail/templates/layout.js';
import { type VisitNoticeKind, visitAssignedMail, visitNoticeMail } from '../mail/templates/visit-notice.js';
import type { Tx } from '../platform/db/store.js';
import { defaultBrandLocale } from '../shared/i18n/index.js';
import { newId } from '../shared/ids.js';
import { iso } from '../shared/time.js';
import type { Actor } from './customer-details.js';
import {
  bumpVisitSequence,
  type CalendarVisitRow,
  insertActivity,
  selectCalendarVisitLocked,
  selectNoticeBrand,
  selectNoticeUser,
  updateVisitNotice,
} from './queries.js';
import { visitAddress, visitInvitation } from './visit-calendar.js';

/** The outbox kind of a customer's visit notice (a mail written when sent: see background.ts). */
export const VISIT_NOTICE_MAIL = 'visit_notice';
/** The outbox kind of the mail to the colleague a visit is given to or moved for. */
export const VISIT_ASSIGNED_MAIL = 'visit_assigned';

/** What changed of a visit. */
export interface VisitChange {
  /** Its start or length changed (or it got its first date). */
  moved?: boolean;
  /** It was given to someone else. */
  reassigned?: boolean;
  /** Its address changed. */
  addressChanged?: boolean;
  /** It was cancelled, or its date taken away. */
  cancelled?: boolean;
}

/**
 * Records a change of the lead's visit in the caller's write (after the change itself): one more on its SEQUENCE
 * and the mails it causes. A lead without a visit, now or told of before, changes nothing.
 */
export async function visitChanged(
  tx: Tx,
  brandId: string,
  leadId: string,
  change: VisitChange,
  actor: Actor | null,
): Promise<void> {
  const row = await selectCalendarVisitLocked(tx, leadId);
  if (!row || row.brand_id !== brandId) return;
  const toldOfVisit = row.visit_notice_kind === 'planned' || row.visit_notice_kind === 'moved';
  if (row.scheduled_for === null && !toldOfVisit) return;
  await bumpVisitSequence(tx, leadId);
  if (!tx.mail || row.spam) return;
  const customerSees = change.moved || change.addressChanged || change.cancelled;
  if (customerSees && row.customer_email && !(await unclaimedEmailQueued(tx, VISIT_NOTICE_MAIL, leadId))) {
    const brand = await selectNoticeBrand(tx, brandId);
    if (brand?.visit_notices === 1) {
      await queueSendTimeEmail(tx, {
        brandId,
        kind: VISIT_NOTICE_MAIL,
        recipient: row.customer_email,
        // What the dashboard lists if it fails: no time, which the worker decides when it writes the mail.
        subject: row.title,
        ref: `${leadId}:${newId('email')}`,
        leadId,
      });
    }
  }
  await tellAssignee(tx, brandId, row, change, actor);
}

/** The mail to the colleague the visit was given to or moved for, unless they did it themselves. */
async function tellAssignee(
  tx: Tx,
  brandId: string,
  row: CalendarVisitRow,
  change: VisitChange,
  actor: Actor | null,
): Promise<void> {
  if (!tx.mail || !row.assignee_id || row.status === 'cancelled') return;
  if (actor?.type === 'user' && actor.id === row.assignee_id) return;
  const kind = change.reassigned ? 'assigned' : change.moved && row.scheduled_for !== null ? 'moved' : null;
  if (!kind) return;
  const user = await selectNoticeUser(tx, brandId, row.assignee_id);
  const brand = await selectNoticeBrand(tx, brandId);
  if (!user || !brand) return;
  const mail = visitAssignedMail({
    locale: await userMailLocale(tx, row.assignee_id),
    kind,
    byName: actor?.name ?? brand.name,
    timeZone: brand.time_zone,
    title: row.title,
    start: row.scheduled_for,
    durationMinutes: row.duration_minutes,
    address: visitAddress(row),
    customerName: row.customer_name,
    link: `${tx.mail.publicUrl.replace(/\/+$/, '')}/dashboard/leads/${row.id}`,
  });
  await queueEmail(tx, {
    brandId,
    kind: VISIT_ASSIGNED_MAIL,
    recipient: user.email,
    leadId: row.id,
    ...mail,
  });
}

/** What a notice tells: the kind and the start it names. */
interface Telling {
  kind: VisitNoticeKind;
  start: number;
}

/**
 * What to tell the customer now, from the visit as it is and what they were last told; null: nothing. A retry
 * of the notice that told the latest tells it again.
 */
function telling(row: CalendarVisitRow, ref: string): Telling | null {
  if (row.visit_notice_sequence === row.visit_sequence) {
    if (row.visit_notice_ref !== ref || row.visit_notice_start === null) return null;
    return { kind: row.visit_notice_kind as VisitNoticeKind, start: Number(row.visit_notice_start) };
  }
  const toldOfVisit = row.visit_notice_kind === 'planned' || row.visit_notice_kind === 'moved';
  if (row.scheduled_for !== null && row.status !== 'cancelled') {
    const start = Number(row.scheduled_for);
    return { kind: toldOfVisit ? 'moved' : 'planned', start };
  }
  // Cancelled, or its date taken away: worth a word only to a customer told of the visit.
  return toldOfVisit && row.visit_notice_start !== null
    ? { kind: 'cancelled', start: Number(row.visit_notice_start) }
    : null;
}

/**
 * The mail worker's renderer of a visit notice (SendTimeRenderer): the visit as it is now, in the brand's
 * language, the time in its time zone, with the invitation (METHOD:REQUEST, or CANCEL). Null (dropped unsent)
 * when there is nothing new to tell, the lead is spam, the brand turned notices off or the customer has no email.
 * Writes down what it tells (the lead locked meanwhile), and a line on the lead's timeline.
 */
export async function renderVisitNotice(tx: Tx, ref: string, now: number): Promise<RenderedMail | null> {
  const leadId = ref.slice(0, ref.indexOf(':'));
  const row = await selectCalendarVisitLocked(tx, leadId);
  if (!row || row.spam || !row.customer_email) return null;
  const brand = await selectNoticeBrand(tx, row.brand_id);
  if (!brand || brand.visit_notices !== 1) return null;
  const told = telling(row, ref);
  if (!told) return null;
  if (row.visit_notice_ref !== ref || row.visit_notice_sequence !== row.visit_sequence) {
    await updateVisitNotice(tx, leadId, { sequence: row.visit_sequence, ref, ...told });
    await insertActivity(tx, {
      id: newId('activity', now),
      lead_id: leadId,
      at: now,
      kind: 'visit_notice_sent',
      actor_type: 'user',
      actor_id: null,
      actor_name: null,
      detail: JSON.stringify({ notice: told.kind, start: iso(told.start), sequence: row.visit_sequence }),
    });
  }
  const method = told.kind === 'cancelled' ? 'CANCEL' : 'REQUEST';
  return visitNoticeMail({
    locale: mailLocale([brand.language], defaultBrandLocale(brand.default_country)),
    kind: told.kind,
    brandName: brand.name,
    timeZone: brand.time_zone,
    customerName: row.customer_name,
    title: row.title,
    start: told.start,
    durationMinutes: row.duration_minutes,
    address: visitAddress(row),
    calendar: {
      method,
      content: visitInvitation(row, {
        method,
        start: told.start,
        brandName: brand.name,
        from: tx.mail?.from,
      }),
    },
  });
}
