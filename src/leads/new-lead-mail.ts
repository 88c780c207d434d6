// "New lead" mails: on each new lead, one mail to every user of its brand who has "Email me new leads" on, queued
// in the lead's own transaction, and the receipt of a form with auto-reply. What the mails say is in
// mail/templates/ (new-lead.ts, receipt.ts); this reads the lead and its recipients and queues them.

import { queueEmail } from '../mail/outbox.js';
import { newLeadMail } from '../mail/templates/new-lead.js';
import { receiptMail } from '../mail/templates/receipt.js';
import type { Tx } from '../platform/db/store.js';
import { NotFoundError } from '../shared/errors.js';
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
    const message = newLeadMail({
      brandName: lead.brand_name,
      brandCountry: lead.default_country,
      title: lead.title,
      priority: lead.priority,
      contact: submitted,
      link: `${tx.mail.publicUrl}/dashboard/leads/${leadId}`,
      settingsLink: `${tx.mail.publicUrl}/dashboard/settings/users`,
    });
    for (const { email } of recipients) {
      await queueEmail(tx, { brandId, kind: 'new_lead', recipient: email, ...message }, now);
      queued++;
    }
  }
  if (lead.auto_reply === 1 && submitted.email) {
    const receipt = receiptMail({
      brandName: lead.brand_name,
      brandCountry: lead.default_country,
      title: lead.title,
      description: lead.description,
      contact: submitted,
    });
    await queueEmail(tx, { brandId, kind: 'receipt', recipient: submitted.email, ...receipt }, now);
    queued++;
  }
  return queued;
}
