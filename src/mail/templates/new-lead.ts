// The "new lead" mail to the brand's users who have "Email me new leads" on: what they need to call back (title,
// customer, phone, email, address, priority) and the dashboard link; never a key, a secret or anything the brand did
// not receive.
import { html } from '../../platform/web/html.js';
import { formatPhone } from '../../shared/phone.js';
import {
  type Detail,
  detailLines,
  detailTable,
  linkButton,
  type MailContact,
  mailDocument,
  oneLine,
  type RenderedMail,
  shownDetails,
} from './layout.js';

export interface NewLeadMailData {
  brandName: string;
  /** The brand's default country: its phones are written nationally, others internationally. Absent: internationally. */
  brandCountry?: string | undefined;
  title: string;
  priority: string;
  /** The contact and address as submitted with the lead. */
  contact: MailContact;
  /** The lead in the dashboard. */
  link: string;
  /** Where the reader turns these mails off. */
  settingsLink: string;
}

const PRIORITY_LABELS: Record<string, string> = {
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  urgent: 'Urgent',
};

export function newLeadMail(mail: NewLeadMailData): RenderedMail {
  const s = mail.contact;
  const customer = [s.customerName, s.companyName ? `(${s.companyName})` : null].filter(Boolean).join(' ');
  const street = [s.street, s.streetNumber, s.streetNumberAddition].filter(Boolean).join(' ');
  const place = [s.postalCode, s.city].filter(Boolean).join(' ');
  const address = [street, place, s.country].filter(Boolean).join(', ');
  const shown = shownDetails([
    ['Customer', customer],
    ['Phone', s.phone ? formatPhone(s.phone, mail.brandCountry) : ''],
    ['Email', s.email ?? ''],
    ['Address', address],
    ['Priority', PRIORITY_LABELS[mail.priority] ?? mail.priority],
  ] satisfies Detail[]);
  const title = oneLine(mail.title);

  const text = [
    `New lead for ${mail.brandName}`,
    '',
    title,
    '',
    ...detailLines(shown),
    '',
    'Open it in the dashboard:',
    mail.link,
    '',
    '-- ',
    `You get this mail because "Email me new leads" is on for you. Turn it off under Settings > Users: ${mail.settingsLink}`,
    '',
  ].join('\n');

  const card = html`<p style="margin:0 0 4px;color:#59636e;font-size:14px">New lead for ${mail.brandName}</p>
<h1 style="margin:0 0 16px;font-size:22px;line-height:1.3">${title}</h1>
${detailTable(shown)}
${linkButton(mail.link, 'Open the lead', '0')}`;
  const footer = html`You get this mail because &ldquo;Email me new leads&rdquo; is on for you. <a href="${mail.settingsLink}" style="color:#59636e">Turn it off under Settings &gt; Users</a>.`;
  return { subject: `New lead: ${title}`, text, html: mailDocument(`New lead: ${title}`, card, footer) };
}
