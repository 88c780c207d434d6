// "New lead" mails: on each new lead, one mail to every user of its brand who has "Email me new leads" on, queued
// in the lead's own transaction, and the receipt of a form with auto-reply. What the mails say is in
// mail/templates/ (new-lead.ts, receipt.ts); this reads the lead and its recipients and queues them.

import type { Selectable } from 'kysely';
import { queueEmail } from '../mail/outbox.js';
import { newLeadMail } from '../mail/templates/new-lead.js';
import { receiptMail } from '../mail/templates/receipt.js';
import type { BrandTable, FormTable, LeadTable } from '../platform/db/schema.js';
import { statement } from '../platform/db/sql.js';
import type { Tx } from '../platform/db/store.js';
import { NotFoundError } from '../shared/errors.js';
import type { Submitted } from './input.js';

const RECIPIENTS = statement(
  'select email from users where brand_id = ? and notify_new_leads = 1 and disabled_at is null ' +
    'order by created_at, id',
);
const LEAD = statement(
  'select l.title, l.description, l.priority, l.submitted, b.name as brand_name, b.default_country, ' +
    'f.auto_reply from leads l ' +
    'join brands b on b.id = l.brand_id left join forms f on f.id = l.source_form_id ' +
    'where l.id = ? and l.brand_id = ?',
);

type LeadRow = Pick<Selectable<LeadTable>, 'title' | 'description' | 'priority' | 'submitted'> &
  Pick<Selectable<BrandTable>, 'default_country'> & {
    brand_name: string;
    /** Null when the lead came in through no form (left join). */
    auto_reply: Selectable<FormTable>['auto_reply'] | null;
  };

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
  const recipients = await tx.all<{ email: string }>(RECIPIENTS, [brandId]);
  const [lead] = await tx.all<LeadRow>(LEAD, [leadId, brandId]);
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
