// Finding or creating the customer a lead belongs to: by normalised email, then by E.164 phone, within one brand.
import type { DB } from '../db/database.js';
import { newId } from './ids.js';
import type { LeadInput } from './lead-input.js';

export type CustomerType = 'person' | 'business';

async function findCustomer(trx: DB, brandId: string, emailNormalized: string | null, phone: string | null) {
  if (emailNormalized) {
    const byEmail = await trx
      .selectFrom('customers')
      .select('id')
      .where('brand_id', '=', brandId)
      .where('email_normalized', '=', emailNormalized)
      .executeTakeFirst();
    if (byEmail) return byEmail.id;
  }
  if (phone) {
    const byPhone = await trx
      .selectFrom('customers')
      .select('id')
      .where('brand_id', '=', brandId)
      .where('phone', '=', phone)
      .executeTakeFirst();
    if (byPhone) return byPhone.id;
  }
  return undefined;
}

/**
 * Returns the id of the brand's customer with this email (case-insensitive) or else this phone, creating one
 * when neither matches. Safe under concurrency: unique indexes on (brand, email) and (brand, phone) make a
 * racing insert a no-op, after which the winner's row is found.
 */
export async function findOrCreateCustomer(
  trx: DB,
  brandId: string,
  input: LeadInput,
  now: number,
): Promise<{ id: string; created: boolean }> {
  const emailNormalized = input.email ? input.email.toLowerCase() : null;
  const existing = await findCustomer(trx, brandId, emailNormalized, input.phone);
  if (existing) return { id: existing, created: false };

  const id = newId('customer', now);
  const inserted = await trx
    .insertInto('customers')
    .values({
      id,
      brand_id: brandId,
      type: input.companyName ? 'business' : 'person',
      name: input.customerName,
      first_name: input.firstName,
      last_name: input.lastName,
      email: input.email,
      email_normalized: emailNormalized,
      phone: input.phone,
      company_name: input.companyName,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { id, created: true };

  const winner = await findCustomer(trx, brandId, emailNormalized, input.phone);
  if (!winner) throw new Error('customer insert conflicted but no matching customer was found');
  return { id: winner, created: false };
}
