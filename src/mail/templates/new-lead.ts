// The "new lead" mail to the brand's users who have "Email me new leads" on: what they need to call back (title,
// customer, phone, email, address, priority, when it came in, the names of its photos and files, never the files
// themselves) and the dashboard link; never a key, a secret or anything the brand did not receive. Written in the reader's language (informal, as the dashboard).
import { html } from '../../platform/web/html.js';
import { richText } from '../../platform/web/messages.js';
import { type Locale, type MessageKey, translator } from '../../shared/i18n/index.js';
import { formatPhone } from '../../shared/phone.js';
import type { Detail, MailContact, RenderedMail } from './layout.js';
import { detailLines, detailTable, linkButton, mailDocument, oneLine, shownDetails } from './layout.js';

export interface NewLeadMailData {
  /** The reader's language. */
  locale: Locale;
  brandName: string;
  /** The brand's default country: its phones are written nationally, others internationally. Absent: internationally. */
  brandCountry?: string | undefined;
  /** The brand's time zone, for when the lead came in. */
  timeZone: string;
  /** When the lead came in (ms since the epoch). */
  receivedAt: number;
  title: string;
  priority: string;
  /** The contact and address as submitted with the lead. */
  contact: MailContact;
  /** The lead in the dashboard. */
  link: string;
  /** Where the reader turns these mails off. */
  settingsLink: string;
  /** The names of the photos and files that came with it (listed, never attached). */
  files?: readonly string[];
}

const PRIORITY_LABELS: Record<string, MessageKey> = {
  low: 'mail.priority.low',
  medium: 'mail.priority.medium',
  high: 'mail.priority.high',
  urgent: 'mail.priority.urgent',
};

export function newLeadMail(mail: NewLeadMailData): RenderedMail {
  const tr = translator(mail.locale);
  const s = mail.contact;
  const customer =
    s.customerName && s.companyName
      ? tr.t('mail.newLead.customerWithCompany', { name: s.customerName, company: s.companyName })
      : (s.customerName ?? s.companyName ?? '');
  const street = [s.street, s.streetNumber, s.streetNumberAddition].filter(Boolean).join(' ');
  const place = [s.postalCode, s.city].filter(Boolean).join(' ');
  const address = [street, place, s.country].filter(Boolean).join(', ');
  const priorityKey = PRIORITY_LABELS[mail.priority];
  const shown = shownDetails([
    [tr.t('mail.detail.customer'), customer],
    [tr.t('mail.detail.phone'), s.phone ? formatPhone(s.phone, mail.brandCountry) : ''],
    [tr.t('mail.detail.email'), s.email ?? ''],
    [tr.t('mail.detail.address'), address],
    [tr.t('mail.detail.priority'), priorityKey ? tr.t(priorityKey) : mail.priority],
    [tr.t('mail.detail.received'), tr.dateTime(mail.receivedAt, mail.timeZone)],
    [tr.t('mail.detail.files'), (mail.files ?? []).map(oneLine).join(', ')],
  ] satisfies Detail[]);
  const title = oneLine(mail.title);
  const heading = tr.t('mail.newLead.heading', { brand: mail.brandName });
  const subject = tr.t('mail.newLead.subject', { title });

  const text = [
    heading,
    '',
    title,
    '',
    ...detailLines(shown),
    '',
    tr.t('mail.newLead.openInDashboard'),
    mail.link,
    '',
    '-- ',
    tr.t('mail.newLead.footer.text', { link: mail.settingsLink }),
    '',
  ].join('\n');

  const card = html`<p style="margin:0 0 4px;color:#59636e;font-size:14px">${heading}</p>
<h1 style="margin:0 0 16px;font-size:22px;line-height:1.3">${title}</h1>
${detailTable(shown)}
${linkButton(mail.link, tr.t('mail.newLead.button'), '0')}`;
  const footer = richText(tr, 'mail.newLead.footer.html', {
    link: (inner) => html`<a href="${mail.settingsLink}" style="color:#59636e">${inner}</a>`,
  });
  return { subject, text, html: mailDocument(mail.locale, subject, card, footer) };
}
