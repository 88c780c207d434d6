// "New lead" mails: on each new lead, one mail to every user of its brand who chose "every lead" (never to the user
// who typed it in), queued in the lead's own transaction, each in that user's language, with Reply-To the customer's
// email when they gave one; and the receipt of a form with auto-reply, in the form's language. Users who chose the
// daily summary hear of it at 08:00 (new-lead-summary.ts). What the mails say is in mail/templates/ (new-lead.ts, receipt.ts); this reads the lead and its
// recipients and queues them.

import { leadAttachments } from '../attachments/attachments.js';
import { queueEmail } from '../mail/outbox.js';
import { receiptAllowed } from '../mail/receipts.js';
import { mailLocale, type RenderedMail } from '../mail/templates/layout.js';
import { newLeadMail } from '../mail/templates/new-lead.js';
import { receiptMail } from '../mail/templates/receipt.js';
import type { Tx } from '../platform/db/store.js';
import { NotFoundError } from '../shared/errors.js';
import { defaultBrandLocale, type Locale } from '../shared/i18n/index.js';
import { isValidEmail } from '../shared/values.js';
import type { Submitted } from './input.js';
import { selectMailLead, selectNewLeadRecipients } from './queries.js';

/** Where a user chooses their new-lead email (every lead, a daily summary, none): the mails' footers link it. */
export const NEW_LEAD_MAIL_SETTINGS = '/dashboard/settings/account#new-lead-mail';

/**
 * Queues the mails a new lead causes, in the caller's transaction (so the mails exist exactly when the lead does):
 * the "new lead" mail to each user of the brand who wants it, and, for a lead from a form with auto-reply on, the
 * receipt to the customer when they gave an email (at most a few a day to one address: mail/receipts.ts).
 * Does nothing when email is off. Returns how many were queued.
 */
export async function queueNewLeadEmails(
  tx: Tx,
  brandId: string,
  leadId: string,
  now: number = Date.now(),
): Promise<number> {
  if (!tx.mail) return 0;
  const lead = await selectMailLead(tx, brandId, leadId);
  if (!lead) throw new NotFoundError(`No lead with id ${leadId}`);
  // Whoever typed the lead in knows of it already.
  const recipients = (await selectNewLeadRecipients(tx, brandId)).filter((r) => r.id !== lead.source_user_id);
  const submitted = JSON.parse(lead.submitted) as Partial<Submitted>;
  // Reply goes to the customer, when they gave an email.
  const replyTo = submitted.email && isValidEmail(submitted.email) ? submitted.email : null;
  // Files that came with it are named, never attached (the dashboard link shows them).
  const files = recipients.length ? (await leadAttachments(tx, leadId)).map((a) => a.fileName) : [];
  let queued = 0;
  // Each mail is written now, in its reader's language: the user's own for the office (else the brand's), the
  // form's for the customer's receipt (the brand's for a lead that came through no form).
  const brandLocale = mailLocale([lead.brand_language], defaultBrandLocale(lead.default_country));
  const messages = new Map<Locale, RenderedMail>();
  for (const recipient of recipients) {
    const locale = mailLocale([recipient.language], brandLocale);
    let message = messages.get(locale);
    if (!message) {
      message = newLeadMail({
        locale,
        brandName: lead.brand_name,
        brandCountry: lead.default_country,
        timeZone: lead.time_zone,
        receivedAt: lead.created_at,
        title: lead.title,
        description: lead.description,
        priority: lead.priority,
        contact: submitted,
        link: `${tx.mail.publicUrl}/dashboard/leads/${leadId}`,
        settingsLink: `${tx.mail.publicUrl}${NEW_LEAD_MAIL_SETTINGS}`,
        files,
      });
      messages.set(locale, message);
    }
    await queueEmail(
      tx,
      { brandId, kind: 'new_lead', recipient: recipient.email, leadId, replyTo, ...message },
      now,
    );
    queued++;
  }
  if (lead.auto_reply === 1 && submitted.email && (await receiptAllowed(tx, brandId, submitted.email, now))) {
    const receipt = receiptMail({
      locale: mailLocale([lead.form_language], brandLocale),
      brandName: lead.brand_name,
      brandCountry: lead.default_country,
      title: lead.title,
      description: lead.description,
      contact: submitted,
    });
    await queueEmail(tx, { brandId, kind: 'receipt', recipient: submitted.email, leadId, ...receipt }, now);
    queued++;
  }
  return queued;
}
