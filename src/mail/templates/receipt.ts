// The receipt a form with auto-reply sends the customer: what they asked for and how they will be reached, in their
// own words. It holds nothing the customer did not send (no customer record, no earlier jobs, no links). Written in
// the form's language, formally ("u"), as a business writes to its customers.
import { html } from '../../platform/web/html.js';
import { type Locale, translator } from '../../shared/i18n/index.js';
import { formatPhone } from '../../shared/phone.js';
import type { Detail, MailContact, RenderedMail } from './layout.js';
import { detailLines, detailTable, mailDocument, oneLine, shownDetails } from './layout.js';

export interface ReceiptMailData {
  /** The form's language (the brand's for a lead that came through no form). */
  locale: Locale;
  brandName: string;
  /** The brand's default country: its phones are written nationally, others internationally. Absent: internationally. */
  brandCountry?: string | undefined;
  title: string;
  description: string | null;
  /** The contact and address as the customer submitted them: only what they sent is repeated to them. */
  contact: MailContact;
}

export function receiptMail(mail: ReceiptMailData): RenderedMail {
  const tr = translator(mail.locale);
  const s = mail.contact;
  const name = s.customerName ?? ([s.firstName, s.lastName].filter(Boolean).join(' ') || null);
  const street = [s.street, s.streetNumber, s.streetNumberAddition].filter(Boolean).join(' ');
  const place = [s.postalCode, s.city].filter(Boolean).join(' ');
  const address = [street, place].filter(Boolean).join(', ');
  const title = oneLine(mail.title);
  const shown = shownDetails([
    [tr.t('mail.detail.request'), title],
    [tr.t('mail.detail.details'), mail.description ?? ''],
    [tr.t('mail.detail.address'), address],
    [tr.t('mail.detail.phone'), s.phone ? formatPhone(s.phone, mail.brandCountry) : ''],
    [tr.t('mail.detail.email'), s.email ?? ''],
  ] satisfies Detail[]);
  const greeting = name
    ? tr.t('mail.receipt.greeting', { name: oneLine(name) })
    : tr.t('mail.receipt.greetingNoName');
  const intro = tr.t('mail.receipt.intro', { brand: mail.brandName });
  const closing = tr.t('mail.receipt.closing', { brand: mail.brandName });
  const regards = tr.t('mail.receipt.regards');

  const text = [
    greeting,
    '',
    intro,
    '',
    tr.t('mail.receipt.sent.textHeading'),
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
<p style="margin:0 0 4px;color:#59636e;font-size:14px">${tr.t('mail.receipt.sent.heading')}</p>
${detailTable(shown, ';white-space:pre-line')}
<p style="margin:0 0 16px">${closing}</p>
<p style="margin:0">${regards}<br>${mail.brandName}</p>`;
  return {
    // Nothing the poster typed goes in the subject: a receipt must not carry a stranger's message to an inbox.
    subject: tr.t('mail.receipt.subject', { brand: mail.brandName }),
    text,
    html: mailDocument(mail.locale, tr.t('mail.receipt.documentTitle', { brand: mail.brandName }), card),
  };
}
