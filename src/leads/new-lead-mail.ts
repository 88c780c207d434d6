// "New lead" mails: on each new lead, one mail to every user of its brand who has "Email me new leads" on, queued
// in the lead's own transaction. The mail holds what staff need to call back (title, customer, phone, email,
// address, priority) and the dashboard link; never a key, a secret or anything the brand did not receive.

import { queueEmail } from '../mail/outbox.js';
import type { Tx } from '../platform/db/store.js';
import { escapeHtml } from '../platform/web/escape-html.js';
import { NotFoundError } from '../shared/errors.js';
import { formatPhone } from '../shared/phone.js';
import type { Submitted } from './input.js';
import { selectMailLead, selectNewLeadRecipients } from './queries.js';

/**
 * Queues the mails a new lead causes, in the caller's transaction (so the mails exist exactly when the lead does):
 * the "new lead" mail to each user of the brand who wants it, and, for a lead from a form with auto-reply on, the
 * receipt to the customer when they gave an email. Does nothing when email is off. Returns how many were queued.
 */
export async function queueNewLeadEmails(
  tx: Tx,
  brandId: string,
  leadId: string,
  now: number = Date.now(),
): Promise<number> {
  if (!tx.mail) return 0;
  const recipients = await selectNewLeadRecipients(tx, brandId);
  const lead = await selectMailLead(tx, brandId, leadId);
  if (!lead) throw new NotFoundError(`No lead with id ${leadId}`);
  const submitted = JSON.parse(lead.submitted) as Partial<Submitted>;
  let queued = 0;
  if (recipients.length) {
    const message = renderNewLeadEmail({
      brandName: lead.brand_name,
      brandCountry: lead.default_country,
      title: lead.title,
      priority: lead.priority,
      submitted,
      link: `${tx.mail.publicUrl}/dashboard/leads/${leadId}`,
      settingsLink: `${tx.mail.publicUrl}/dashboard/settings/users`,
    });
    for (const { email } of recipients) {
      await queueEmail(tx, { brandId, kind: 'new_lead', recipient: email, ...message }, now);
      queued++;
    }
  }
  if (lead.auto_reply === 1 && submitted.email) {
    const receipt = renderReceiptEmail({
      brandName: lead.brand_name,
      brandCountry: lead.default_country,
      title: lead.title,
      description: lead.description,
      submitted,
    });
    await queueEmail(tx, { brandId, kind: 'receipt', recipient: submitted.email, ...receipt }, now);
    queued++;
  }
  return queued;
}

export interface NewLeadMail {
  brandName: string;
  /** The brand's default country: its phones are written nationally, others internationally. Absent: internationally. */
  brandCountry?: string | undefined;
  title: string;
  priority: string;
  /** The contact and address as submitted with the lead. */
  submitted: Partial<Submitted>;
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

/** One line of header text: no line breaks or runs of spaces (a title may hold them). */
function oneLine(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

/** Subject, plain text and HTML of the mail. Every value from the lead is escaped in the HTML part. */
export function renderNewLeadEmail(mail: NewLeadMail): { subject: string; text: string; html: string } {
  const s = mail.submitted;
  const customer = [s.customerName, s.companyName ? `(${s.companyName})` : null].filter(Boolean).join(' ');
  const street = [s.street, s.streetNumber, s.streetNumberAddition].filter(Boolean).join(' ');
  const place = [s.postalCode, s.city].filter(Boolean).join(' ');
  const address = [street, place, s.country].filter(Boolean).join(', ');
  const rows: [string, string][] = [
    ['Customer', customer],
    ['Phone', s.phone ? formatPhone(s.phone, mail.brandCountry) : ''],
    ['Email', s.email ?? ''],
    ['Address', address],
    ['Priority', PRIORITY_LABELS[mail.priority] ?? mail.priority],
  ];
  const shown = rows.filter(([, value]) => value !== '');
  const title = oneLine(mail.title);

  const text = [
    `New lead for ${mail.brandName}`,
    '',
    title,
    '',
    ...shown.map(([label, value]) => `${`${label}:`.padEnd(10)}${value}`),
    '',
    'Open it in the dashboard:',
    mail.link,
    '',
    '-- ',
    `You get this mail because "Email me new leads" is on for you. Turn it off under Settings > Users: ${mail.settingsLink}`,
    '',
  ].join('\n');

  const e = escapeHtml;
  const cell = 'padding:4px 16px 4px 0;vertical-align:top';
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${e(`New lead: ${title}`)}</title></head>
<body style="margin:0;padding:24px;background:#f6f7f9;color:#1f2328;font:16px/1.5 -apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border:1px solid #d0d7de;border-radius:8px;padding:24px">
<p style="margin:0 0 4px;color:#59636e;font-size:14px">New lead for ${e(mail.brandName)}</p>
<h1 style="margin:0 0 16px;font-size:22px;line-height:1.3">${e(title)}</h1>
<table role="presentation" style="border-collapse:collapse;margin:0 0 20px">
${shown.map(([label, value]) => `<tr><th scope="row" style="${cell};text-align:left;color:#59636e;font-weight:normal">${e(label)}</th><td style="${cell}">${e(value)}</td></tr>`).join('\n')}
</table>
<p style="margin:0 0 8px"><a href="${e(mail.link)}" style="display:inline-block;background:#1f6feb;color:#ffffff;text-decoration:none;padding:10px 16px;border-radius:6px;font-weight:600">Open the lead</a></p>
<p style="margin:0;color:#59636e;font-size:14px;word-break:break-all">${e(mail.link)}</p>
</div>
<p style="max-width:560px;margin:16px auto 0;color:#59636e;font-size:13px">You get this mail because &ldquo;Email me new leads&rdquo; is on for you. <a href="${e(mail.settingsLink)}" style="color:#59636e">Turn it off under Settings &gt; Users</a>.</p>
</body>
</html>
`;
  return { subject: `New lead: ${title}`, text, html };
}

export interface ReceiptMail {
  brandName: string;
  /** The brand's default country: its phones are written nationally, others internationally. Absent: internationally. */
  brandCountry?: string | undefined;
  title: string;
  description: string | null;
  /** The contact and address as the customer submitted them: only what they sent is repeated to them. */
  submitted: Partial<Submitted>;
}

/**
 * The receipt a form with auto-reply sends the customer: what they asked for and how they will be reached, in their
 * own words. It holds nothing the customer did not send (no customer record, no earlier jobs, no links).
 */
export function renderReceiptEmail(mail: ReceiptMail): { subject: string; text: string; html: string } {
  const s = mail.submitted;
  const name = s.customerName ?? ([s.firstName, s.lastName].filter(Boolean).join(' ') || null);
  const street = [s.street, s.streetNumber, s.streetNumberAddition].filter(Boolean).join(' ');
  const place = [s.postalCode, s.city].filter(Boolean).join(' ');
  const address = [street, place].filter(Boolean).join(', ');
  const title = oneLine(mail.title);
  const rows: [string, string][] = [
    ['Request', title],
    ['Details', mail.description ?? ''],
    ['Address', address],
    ['Phone', s.phone ? formatPhone(s.phone, mail.brandCountry) : ''],
    ['Email', s.email ?? ''],
  ];
  const shown = rows.filter(([, value]) => value !== '');
  const greeting = name ? `Dear ${oneLine(name)},` : 'Hello,';
  const intro = `Thank you for your request. ${mail.brandName} has received it and will contact you soon.`;

  const text = [
    greeting,
    '',
    intro,
    '',
    'What you sent us:',
    '',
    ...shown.map(([label, value]) => `${`${label}:`.padEnd(10)}${value}`),
    '',
    `If anything here is wrong, please let ${mail.brandName} know.`,
    '',
    mail.brandName,
    '',
  ].join('\n');

  const e = escapeHtml;
  const cell = 'padding:4px 16px 4px 0;vertical-align:top';
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${e(`Your request to ${mail.brandName}`)}</title></head>
<body style="margin:0;padding:24px;background:#f6f7f9;color:#1f2328;font:16px/1.5 -apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border:1px solid #d0d7de;border-radius:8px;padding:24px">
<p style="margin:0 0 12px">${e(greeting)}</p>
<p style="margin:0 0 16px">${e(intro)}</p>
<p style="margin:0 0 4px;color:#59636e;font-size:14px">What you sent us</p>
<table role="presentation" style="border-collapse:collapse;margin:0 0 20px">
${shown.map(([label, value]) => `<tr><th scope="row" style="${cell};text-align:left;color:#59636e;font-weight:normal">${e(label)}</th><td style="${cell};white-space:pre-line">${e(value)}</td></tr>`).join('\n')}
</table>
<p style="margin:0 0 16px">${e(`If anything here is wrong, please let ${mail.brandName} know.`)}</p>
<p style="margin:0">${e(mail.brandName)}</p>
</div>
</body>
</html>
`;
  return { subject: `We received your request: ${title}`, text, html };
}
