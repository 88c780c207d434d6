// The "new lead" mail to the brand's users who chose a mail on every lead: what they need to call back (title, the
// description of the problem, customer, phone, email, address, priority, when it came in, the names of its photos
// and files, never the files themselves) and the dashboard link; never a key, a secret or anything the brand did not receive. Written in the reader's language (informal, as the dashboard).
import { html } from '../../platform/web/html.js';
import { richText } from '../../platform/web/messages.js';
import { type Locale, type MessageKey, type Translator, translator } from '../../shared/i18n/index.js';
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
  /** The problem as the customer (or whoever typed it in) described it; null or empty: none. */
  description?: string | null | undefined;
  priority: string;
  /** The contact and address as submitted with the lead. */
  contact: MailContact;
  /** The lead in the dashboard. */
  link: string;
  /** Where the reader chooses these mails (every lead, a daily summary, none). */
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

/** What a new-lead mail, and each lead of a daily summary, says of a lead besides its title and description. */
export type LeadDetailsData = Pick<
  NewLeadMailData,
  'brandCountry' | 'timeZone' | 'receivedAt' | 'priority' | 'contact' | 'files'
>;

/** The lead's details that have a value: customer, phone, email, address, priority, received, files. */
export function leadDetails(tr: Translator, lead: LeadDetailsData): Detail[] {
  const s = lead.contact;
  const customer =
    s.customerName && s.companyName
      ? tr.t('mail.newLead.customerWithCompany', { name: s.customerName, company: s.companyName })
      : (s.customerName ?? s.companyName ?? '');
  const street = [s.street, s.streetNumber, s.streetNumberAddition].filter(Boolean).join(' ');
  const place = [s.postalCode, s.city].filter(Boolean).join(' ');
  const address = [street, place, s.country].filter(Boolean).join(', ');
  const priorityKey = PRIORITY_LABELS[lead.priority];
  return shownDetails([
    [tr.t('mail.detail.customer'), customer],
    [tr.t('mail.detail.phone'), s.phone ? formatPhone(s.phone, lead.brandCountry) : ''],
    [tr.t('mail.detail.email'), s.email ?? ''],
    [tr.t('mail.detail.address'), address],
    [tr.t('mail.detail.priority'), priorityKey ? tr.t(priorityKey) : lead.priority],
    [tr.t('mail.detail.received'), tr.dateTime(lead.receivedAt, lead.timeZone)],
    [tr.t('mail.detail.files'), (lead.files ?? []).map(oneLine).join(', ')],
  ] satisfies Detail[]);
}

export function newLeadMail(mail: NewLeadMailData): RenderedMail {
  const tr = translator(mail.locale);
  const shown = leadDetails(tr, mail);
  const title = oneLine(mail.title);
  const description = mail.description?.trim() ?? '';
  const heading = tr.t('mail.newLead.heading', { brand: mail.brandName });
  const subject = tr.t('mail.newLead.subject', { title });

  const text = [
    heading,
    '',
    title,
    '',
    ...(description ? [description, ''] : []),
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
${
  description
    ? html`<p style="margin:0 0 16px;white-space:pre-line">${description}</p>
`
    : ''
}${detailTable(shown)}
${linkButton(mail.link, tr.t('mail.newLead.button'), '0')}`;
  const footer = richText(tr, 'mail.newLead.footer.html', {
    link: (inner) => html`<a href="${mail.settingsLink}" style="color:#59636e">${inner}</a>`,
  });
  return { subject, text, html: mailDocument(mail.locale, subject, card, footer) };
}
