// Finding or creating the customer a lead belongs to: by normalised email, then by E.164 phone, within one brand.
import { type Runner, statement } from '../db/sql.js';
import { newId } from './ids.js';
import type { LeadInput } from './lead-input.js';

const BY_EMAIL = statement('select id from customers where brand_id = ? and email_normalized = ?');
const BY_PHONE = statement('select id from customers where brand_id = ? and phone = ?');
const INSERT = statement(
  'insert into customers (id, brand_id, type, name, first_name, last_name, email, email_normalized, phone, ' +
    'company_name, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ' +
    'on conflict do nothing returning id',
);

/** The email as customers are matched by it: lower case. */
export function customerEmailKey(input: LeadInput): string | null {
  return input.email ? input.email.toLowerCase() : null;
}

async function findCustomer(
  r: Runner,
  brandId: string,
  emailNormalized: string | null,
  phone: string | null,
) {
  if (emailNormalized) {
    const [byEmail] = await r.all<{ id: string }>(BY_EMAIL, [brandId, emailNormalized]);
    if (byEmail) return byEmail.id;
  }
  if (phone) {
    const [byPhone] = await r.all<{ id: string }>(BY_PHONE, [brandId, phone]);
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
  r: Runner,
  brandId: string,
  input: LeadInput,
  now: number,
  /** What the caller already looked up in this transaction (see BRAND_AND_CUSTOMER in leads.ts). */
  found?: { byEmail: string | null; byPhone: string | null },
): Promise<{ id: string; created: boolean }> {
  const emailNormalized = customerEmailKey(input);
  const existing = found
    ? (found.byEmail ?? found.byPhone ?? undefined)
    : await findCustomer(r, brandId, emailNormalized, input.phone);
  if (existing) return { id: existing, created: false };

  const id = newId('customer', now);
  const [inserted] = await r.all<{ id: string }>(INSERT, [
    id,
    brandId,
    input.companyName ? 'business' : 'person',
    input.customerName,
    input.firstName,
    input.lastName,
    input.email,
    emailNormalized,
    input.phone,
    input.companyName,
    now,
    now,
  ]);
  if (inserted) return { id, created: true };

  const winner = await findCustomer(r, brandId, emailNormalized, input.phone);
  if (!winner) throw new Error('customer insert conflicted but no matching customer was found');
  return { id: winner, created: false };
}
