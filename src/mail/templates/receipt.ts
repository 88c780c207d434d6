// The receipt a form with auto-reply sends the customer: what they asked for and how they will be reached, in their
// own words. It holds nothing the customer did not send (no customer record, no earlier jobs, no links).
import { html } from '../../platform/web/html.js';
import { formatPhone } from '../../shared/phone.js';
import {
  type Detail,
  detailLines,
  detailTable,
  type MailContact,
  mailDocument,
  oneLine,
  type RenderedMail,
  shownDetails,
} from './layout.js';

export interface ReceiptMailData {
  brandName: string;
  /** The brand's default country: its phones are written nationally, others internationally. Absent: internationally. */
  brandCountry?: string | undefined;
  title: string;
  description: string | null;
  /** The contact and address as the customer submitted them: only what they sent is repeated to them. */
  contact: MailContact;
}

export function receiptMail(mail: ReceiptMailData): RenderedMail {
  const s = mail.contact;
  const name = s.customerName ?? ([s.firstName, s.lastName].filter(Boolean).join(' ') || null);
  const street = [s.street, s.streetNumber, s.streetNumberAddition].filter(Boolean).join(' ');
  const place = [s.postalCode, s.city].filter(Boolean).join(' ');
  const address = [street, place].filter(Boolean).join(', ');
  const title = oneLine(mail.title);
  const shown = shownDetails([
    ['Request', title],
    ['Details', mail.description ?? ''],
    ['Address', address],
    ['Phone', s.phone ? formatPhone(s.phone, mail.brandCountry) : ''],
    ['Email', s.email ?? ''],
  ] satisfies Detail[]);
  const greeting = name ? `Dear ${oneLine(name)},` : 'Hello,';
  const intro = `Thank you for your request. ${mail.brandName} has received it and will contact you soon.`;
  const closing = `If anything here is wrong, please let ${mail.brandName} know.`;

  const text = [
    greeting,
    '',
    intro,
    '',
    'What you sent us:',
    '',
    ...detailLines(shown),
    '',
    closing,
    '',
    mail.brandName,
    '',
  ].join('\n');

  const card = html`<p style="margin:0 0 12px">${greeting}</p>
<p style="margin:0 0 16px">${intro}</p>
<p style="margin:0 0 4px;color:#59636e;font-size:14px">What you sent us</p>
${detailTable(shown, ';white-space:pre-line')}
<p style="margin:0 0 16px">${closing}</p>
<p style="margin:0">${mail.brandName}</p>`;
  return {
    subject: `We received your request: ${title}`,
    text,
    html: mailDocument(`Your request to ${mail.brandName}`, card),
  };
}
