// Editing a customer's contact details (PATCH /v1/customers/{id}, the customer page's Edit): the values read by
// the rules a lead's contact is read by (lengths, a valid email, the phone in E.164, national numbers read in the
// brand's country), one customer.updated event naming the fields and one 'updated' entry in the customer's
// activity (who, and each field from → to). An edit that changes nothing writes nothing. An email another
// customer of the brand has is a 409 that says to merge the two; an erased customer is a 409.
import { findBrand } from '../accounts/brands.js';
import type { Store } from '../platform/db/store.js';
import {
  DomainError,
  type FieldError,
  type FieldErrorText,
  NotFoundError,
  ValidationError,
} from '../shared/errors.js';
import { phoneErrorText, phoneHint, typedPhone } from '../shared/phone.js';
import { isBlank } from '../shared/text.js';
import { characterLength, isValidEmail } from '../shared/values.js';
import { type CustomerActor, recordCustomerActivity } from './activity.js';
import {
  type Contact,
  type ContactField,
  type CustomerDetail,
  getCustomer,
  lockContactKeys,
  otherCustomerWithEmail,
  readCustomer,
  refuseErased,
  updateCustomer,
} from './customers.js';
import { CONTACT_FIELDS } from './fields.js';
import { lockCustomer } from './queries.js';

/** The contact fields an edit may set, in the field table's order. */
export const EDITABLE_CONTACT_FIELDS = Object.keys(CONTACT_FIELDS) as ContactField[];

/** An edit: the fields it sets (left out: unchanged; null: cleared). `name` is never null. */
export type CustomerChanges = Partial<Contact>;

/** Another customer of the brand has the email an edit would set: merge the two instead (409). */
export class EmailTakenError extends DomainError {
  constructor(
    readonly customerId: string,
    readonly otherCustomerId: string,
  ) {
    super(
      'conflict',
      `Another customer of the brand (${otherCustomerId}) already has this email. They are probably the same ` +
        `person: merge the two with POST /v1/customers/${customerId}/merge and {"from": "${otherCustomerId}"}.`,
      { field: 'email', customerId: otherCustomerId },
    );
    this.name = 'EmailTakenError';
  }
}

const INVALID: FieldErrorText = { key: 'validation.invalid' };
const REQUIRED: FieldErrorText = { key: 'validation.required' };
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point of this check
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** One field's value by the lead input's rules: the value to store, or the error. */
function parseValue(
  name: ContactField,
  raw: unknown,
  country: string,
): { value: string | null } | { error: FieldError } {
  const spec = CONTACT_FIELDS[name];
  const fail = (message: string, text: FieldErrorText) => ({ error: { field: name, message, text } });
  if (raw === null || raw === undefined) {
    return spec.required ? fail('is required', REQUIRED) : { value: null };
  }
  if (typeof raw !== 'string') return fail('must be a string or null', INVALID);
  const value = raw.trim();
  if (value === '' || (spec.required && isBlank(value))) {
    return spec.required ? fail('must not be empty', REQUIRED) : { value: null };
  }
  if (CONTROL.test(value)) {
    return fail('must not contain control characters', { key: 'validation.controlCharacters' });
  }
  if (LONE_SURROGATE.test(value))
    return fail('must be valid Unicode text (it holds a lone surrogate)', INVALID);
  if (characterLength(value) > spec.maxLength) {
    return fail(`must be at most ${spec.maxLength} characters`, {
      key: 'validation.tooLong',
      values: { max: spec.maxLength },
    });
  }
  if (name === 'email' && !isValidEmail(value)) {
    return fail('must be a valid email address', { key: 'validation.email' });
  }
  if (name === 'phone') {
    const result = typedPhone(value, country);
    if ('error' in result) {
      return value.startsWith('+')
        ? fail(result.error, { key: 'validation.phoneInternational' })
        : fail(phoneHint(country), phoneErrorText(country));
    }
    return { value: result.phone };
  }
  return { value };
}

/**
 * Reads an edit: each contact field present in `body` (with `all`, every one: a missing field is empty), trimmed,
 * empty optional fields null, the email checked, the phone in E.164 (a national number read in `country`). Other
 * keys are a 422 naming them. Throws ValidationError listing every problem.
 */
export function parseCustomerChanges(
  body: unknown,
  country: string,
  options: { all?: boolean } = {},
): CustomerChanges {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError([{ field: '(body)', message: 'must be a JSON object' }]);
  }
  const source = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const key of Object.keys(source)) {
    if (!(EDITABLE_CONTACT_FIELDS as string[]).includes(key)) {
      errors.push({ field: key, message: 'is not a known field' });
    }
  }
  const changes: Record<string, string | null> = {};
  for (const name of EDITABLE_CONTACT_FIELDS) {
    if (!options.all && !Object.hasOwn(source, name)) continue;
    const parsed = parseValue(name, source[name], country);
    if ('error' in parsed) errors.push(parsed.error);
    else changes[name] = parsed.value;
  }
  if (errors.length) throw new ValidationError(errors);
  return changes as CustomerChanges;
}

/**
 * Applies an edit to one of the brand's customers as `actor` and returns the customer as it is then. The body is
 * read by parseCustomerChanges (a 422 stores nothing). NotFoundError for an unknown id, another brand's customer
 * or one only spam has; a conflict for an erased customer or an email another customer has.
 */
export async function editCustomer(
  store: Store,
  brandId: string,
  id: string,
  body: unknown,
  actor: CustomerActor,
  options: { all?: boolean } = {},
): Promise<{ customer: CustomerDetail; changed: string[] }> {
  const brand = await findBrand(store, brandId);
  if (!brand) throw new NotFoundError(`No brand with id ${brandId}`);
  const changes = parseCustomerChanges(body, brand.defaultCountry, options);
  return store.write(async (tx) => {
    // The new email's and phone's locks first (as a submission takes them), then the row: a submission naming
    // the new email waits and then finds this customer; two edits of one customer take turns.
    await lockContactKeys(tx, [
      { brandId, email: changes.email?.toLowerCase() ?? null, phone: changes.phone ?? null },
    ]);
    await lockCustomer(tx, id);
    await refuseErased(tx, brandId, id);
    const detail = await getCustomer(tx, brandId, id);
    const current = await readCustomer(tx, brandId, id);
    if (changes.email && changes.email.toLowerCase() !== current.email?.toLowerCase()) {
      const other = await otherCustomerWithEmail(tx, brandId, changes.email, id);
      if (other) throw new EmailTakenError(id, other);
    }
    // Strictly later than before, also within the same millisecond: updatedAfter filters must see the change.
    const now = Math.max(Date.now(), Date.parse(current.updatedAt) + 1);
    const changed = await updateCustomer(tx, brandId, current, changes, now);
    if (!changed.length) return { customer: detail, changed };
    const after = await readCustomer(tx, brandId, id);
    const from: Record<string, string | null> = {};
    const to: Record<string, string | null> = {};
    for (const field of changed) {
      from[field] = current[field as keyof typeof current] as string | null;
      to[field] = after[field as keyof typeof after] as string | null;
    }
    await recordCustomerActivity(tx, {
      brandId,
      customerId: id,
      kind: 'updated',
      actor,
      detail: { changed, from, to },
      at: now,
    });
    return { customer: await getCustomer(tx, brandId, id), changed };
  });
}
