// The daily new-lead summary, to each user who chose it: at 08:00 in the brand's time zone, one mail listing the
// leads that came in since the previous 08:00, each as the new-lead mail shows it (title, description, customer,
// phone, email, address, priority, when it came in, the names of its files) with its dashboard link. Written when it
// is sent (src/mail/send-time.ts), in the reader's language, so what it says of a lead is never at rest.
import { html, type SafeHtml } from '../../platform/web/html.js';
import { richText } from '../../platform/web/messages.js';
import { type Locale, translator } from '../../shared/i18n/index.js';
import type { RenderedMail } from './layout.js';
import { detailLines, detailTable, linkButton, mailDocument, oneLine } from './layout.js';
import { type LeadDetailsData, leadDetails } from './new-lead.js';

export interface SummaryLead extends Omit<LeadDetailsData, 'brandCountry' | 'timeZone'> {
  title: string;
  description: string | null;
  /** The lead in the dashboard. */
  link: string;
}

export interface NewLeadSummaryMailData {
  /** The reader's language. */
  locale: Locale;
  brandName: string;
  brandCountry?: string | undefined;
  /** The brand's time zone: the window's ends and when each lead came in are written in it. */
  timeZone: string;
  /** The leads listed came in from windowStart up to windowEnd (ms since the epoch). */
  windowStart: number;
  windowEnd: number;
  /** The leads listed, in the order they came in. */
  leads: readonly SummaryLead[];
  /** How many leads came in in the window (more than listed when the mail would grow too long). */
  total: number;
  /** The dashboard's list of leads. */
  listLink: string;
  /** Where the reader chooses these mails. */
  settingsLink: string;
}

export function newLeadSummaryMail(mail: NewLeadSummaryMailData): RenderedMail {
  const tr = translator(mail.locale);
  const since = tr.dateTime(mail.windowStart, mail.timeZone);
  const until = tr.dateTime(mail.windowEnd, mail.timeZone);
  const subject = tr.t('mail.newLeadSummary.subject', {
    count: mail.total,
    brand: oneLine(mail.brandName),
    since,
  });
  const heading = tr.t('mail.newLeadSummary.heading', { brand: mail.brandName });
  const intro = tr.t('mail.newLeadSummary.intro', { count: mail.total, since, until });
  const more = mail.total - mail.leads.length;
  const moreText = more > 0 ? tr.t('mail.newLeadSummary.more', { count: more }) : '';
  const items = mail.leads.map((lead) => ({
    title: oneLine(lead.title),
    description: lead.description?.trim() ?? '',
    details: leadDetails(tr, { ...lead, brandCountry: mail.brandCountry, timeZone: mail.timeZone }),
    link: lead.link,
  }));

  const text = [
    heading,
    '',
    intro,
    '',
    ...items.flatMap((item, i) => [
      `${i + 1}. ${item.title}`,
      '',
      ...(item.description ? [item.description, ''] : []),
      ...detailLines(item.details),
      item.link,
      '',
    ]),
    ...(moreText ? [moreText, ''] : []),
    tr.t('mail.newLeadSummary.openList'),
    mail.listLink,
    '',
    '-- ',
    tr.t('mail.newLeadSummary.footer.text', { link: mail.settingsLink }),
    '',
  ].join('\n');

  const list: SafeHtml[] = items.map(
    (
      item,
    ) => html`<h2 style="margin:24px 0 8px;font-size:18px;line-height:1.3"><a href="${item.link}" style="color:#1f2328">${item.title}</a></h2>
${item.description ? html`<p style="margin:0 0 12px;white-space:pre-line">${item.description}</p>\n` : ''}${detailTable(item.details)}`,
  );
  const card = html`<p style="margin:0 0 4px;color:#59636e;font-size:14px">${heading}</p>
<h1 style="margin:0 0 16px;font-size:22px;line-height:1.3">${intro}</h1>
${list}
${moreText ? html`<p style="margin:0 0 16px">${moreText}</p>\n` : ''}${linkButton(mail.listLink, tr.t('mail.newLeadSummary.button'), '0')}`;
  const footer = richText(tr, 'mail.newLeadSummary.footer.html', {
    link: (inner) => html`<a href="${mail.settingsLink}" style="color:#59636e">${inner}</a>`,
  });
  return { subject, text, html: mailDocument(mail.locale, subject, card, footer) };
}
