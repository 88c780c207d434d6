// Visit notices (contract "Calendars and visit notices"): to the customer when their visit gets its date, is moved
// or is cancelled, in the brand's language, formally ("u"), with the day and time in the brand's time zone and the
// invitation as iCalendar; and to the colleague a visit is given to or moved for, in their own language.
import { html } from '../../platform/web/html.js';
import { type Locale, type MessageKey, translator } from '../../shared/i18n/index.js';
import type { Detail, MailCalendar, RenderedMail } from './layout.js';
import { detailLines, detailTable, linkButton, mailDocument, oneLine, shownDetails } from './layout.js';

/** What the notice says happened: the visit got its date, was moved, or was cancelled. */
export type VisitNoticeKind = 'planned' | 'moved' | 'cancelled';

const NOTICE_WORDS = {
  planned: { subject: 'mail.visit.planned.subject', intro: 'mail.visit.planned.intro' },
  moved: { subject: 'mail.visit.moved.subject', intro: 'mail.visit.moved.intro' },
  cancelled: { subject: 'mail.visit.cancelled.subject', intro: 'mail.visit.cancelled.intro' },
} as const satisfies Record<VisitNoticeKind, { subject: MessageKey; intro: MessageKey }>;

const COLLEAGUE_WORDS = {
  assigned: { subject: 'mail.visitColleague.assigned.subject', intro: 'mail.visitColleague.assigned.intro' },
  moved: { subject: 'mail.visitColleague.moved.subject', intro: 'mail.visitColleague.moved.intro' },
} as const satisfies Record<string, { subject: MessageKey; intro: MessageKey }>;

export interface VisitNoticeData {
  locale: Locale;
  kind: VisitNoticeKind;
  brandName: string;
  timeZone: string;
  customerName: string | null;
  title: string;
  /** Epoch ms: the visit's start (for a cancellation, the one the customer was told of). */
  start: number;
  durationMinutes: number | null;
  address: string;
  calendar: MailCalendar;
}

export function visitNoticeMail(mail: VisitNoticeData): RenderedMail {
  const tr = translator(mail.locale);
  const title = oneLine(mail.title);
  const when = tr.dateTime(mail.start, mail.timeZone);
  const shown = shownDetails([
    [tr.t('mail.detail.request'), title],
    [tr.t('mail.visit.when'), when],
    [
      tr.t('mail.visit.duration'),
      mail.kind === 'cancelled' || !mail.durationMinutes
        ? ''
        : tr.t('mail.visit.minutes', { minutes: mail.durationMinutes }),
    ],
    [tr.t('mail.detail.address'), mail.address],
  ] satisfies Detail[]);
  const greeting = mail.customerName
    ? tr.t('mail.receipt.greeting', { name: oneLine(mail.customerName) })
    : tr.t('mail.receipt.greetingNoName');
  const intro = tr.t(NOTICE_WORDS[mail.kind].intro, { brand: mail.brandName, when });
  const closing = tr.t(mail.kind === 'cancelled' ? 'mail.visit.cancelled.closing' : 'mail.visit.closing', {
    brand: mail.brandName,
  });
  const regards = tr.t('mail.receipt.regards');
  const text = [
    greeting,
    '',
    intro,
    '',
    ...detailLines(shown),
    '',
    closing,
    '',
    regards,
    mail.brandName,
    '',
  ].join('\n');
  const card = html`<p style="margin:0 0 12px">${greeting}</p>
<p style="margin:0 0 16px">${intro}</p>
${detailTable(shown, ';white-space:pre-line')}
<p style="margin:0 0 16px">${closing}</p>
<p style="margin:0">${regards}<br>${mail.brandName}</p>`;
  return {
    subject: tr.t(NOTICE_WORDS[mail.kind].subject, { title, when }),
    text,
    html: mailDocument(mail.locale, tr.t('mail.visit.documentTitle', { brand: mail.brandName }), card),
    calendar: mail.calendar,
  };
}

export interface VisitAssignedData {
  locale: Locale;
  /** Given to them (now theirs), or theirs and moved. */
  kind: 'assigned' | 'moved';
  /** Who did it, as colleagues see them. */
  byName: string;
  timeZone: string;
  title: string;
  start: number | null;
  durationMinutes: number | null;
  address: string;
  customerName: string;
  link: string;
}

/** To the colleague a visit was given to or moved for (never to the one who did it). */
export function visitAssignedMail(mail: VisitAssignedData): RenderedMail {
  const tr = translator(mail.locale);
  const title = oneLine(mail.title);
  const when = mail.start === null ? tr.t('mail.visit.noTime') : tr.dateTime(mail.start, mail.timeZone);
  const shown = shownDetails([
    [tr.t('mail.detail.request'), title],
    [tr.t('mail.visit.when'), when],
    [
      tr.t('mail.visit.duration'),
      mail.durationMinutes ? tr.t('mail.visit.minutes', { minutes: mail.durationMinutes }) : '',
    ],
    [tr.t('mail.visit.customer'), mail.customerName],
    [tr.t('mail.detail.address'), mail.address],
  ] satisfies Detail[]);
  const intro = tr.t(COLLEAGUE_WORDS[mail.kind].intro, { who: mail.byName, when });
  const open = tr.t('mail.visit.open');
  const text = [intro, '', ...detailLines(shown), '', `${open}: ${mail.link}`, ''].join('\n');
  const card = html`<p style="margin:0 0 16px">${intro}</p>
${detailTable(shown, ';white-space:pre-line')}
${linkButton(mail.link, open, '16px')}`;
  return {
    subject: tr.t(COLLEAGUE_WORDS[mail.kind].subject, { title, when }),
    text,
    html: mailDocument(mail.locale, title, card),
  };
}
