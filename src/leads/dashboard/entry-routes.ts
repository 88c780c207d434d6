// Leads typed in by the office (a phone call, an email, a visit), editing a lead, and the customer a lead being
// typed in would be added to (a small JSON answer for the page script; the form works without it).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findBrand } from '../../accounts/brands.js';
import { hidden, userActor, userOf, userPage } from '../../accounts/dashboard/session.js';
import type { SessionUser } from '../../accounts/sessions.js';
import { matchCustomer } from '../../customers/customers.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { pathParam, seeOther, sendPage, text } from '../../platform/web/http.js';
import { type FieldError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { nationalToE164, phoneErrorText, phoneHint, typedPhone } from '../../shared/phone.js';
import { isValidEmail, normalizeCountry } from '../../shared/values.js';
import { createLead, EDITABLE_FIELDS, getLead, parseLeadChanges, updateLead } from '../index.js';
import { LEAD_FIELDS, type LeadInput, parseLeadInput } from '../input.js';
import {
  editLeadPage,
  editLeadValues,
  newLeadPage,
  newLeadValues,
  TYPED_SOURCES,
} from './views/lead-form.js';

const SOURCES: readonly string[] = TYPED_SOURCES.map(([value]) => value);

/** The typed values to show again: the named fields of the body, as strings. */
function typedValues(body: unknown, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, text(body, name)]));
}

/** A national phone that is no number of the country: examples of both ways to write one. */
function nationalPhoneError(country: string): FieldError {
  return { field: 'phone', message: phoneHint(country), text: phoneErrorText(country) };
}

/**
 * A typed-in lead by the API's rules, except that the phone may be national: read in the typed country, else the
 * brand's (as on website forms). Throws ValidationError listing every problem, the source's too.
 */
export function parseTypedLead(
  values: Record<string, string>,
  defaultCountry: string,
): { input: LeadInput; source: string } {
  const errors: FieldError[] = [];
  const source = values.source ?? '';
  if (!SOURCES.includes(source)) {
    errors.push({
      field: 'source',
      message: 'must be chosen: a phone call or other',
      text: { key: 'lead.error.source' },
    });
  }
  const fields: Record<string, string> = {};
  for (const rule of LEAD_FIELDS) fields[rule.name] = values[rule.name] ?? '';
  const country = normalizeCountry(fields.country ?? '') || defaultCountry;
  const national = Boolean(fields.phone?.trim()) && !fields.phone!.trim().startsWith('+');
  fields.phone = nationalToE164(fields.phone ?? '', country);
  let input: LeadInput | undefined;
  try {
    input = parseLeadInput(fields);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    errors.unshift(
      ...error.errors.map((e) => (e.field === 'phone' && national ? nationalPhoneError(country) : e)),
    );
  }
  if (errors.length || !input) throw new ValidationError(errors);
  return { input, source };
}

const NEW_FIELDS = ['source', ...LEAD_FIELDS.map((f) => f.name)];

async function brandCountry(deps: RouteDeps, user: SessionUser): Promise<string> {
  const brand = await findBrand(deps.database, user.brandId);
  if (!brand) throw new NotFoundError(`No brand with id ${user.brandId}`);
  return brand.defaultCountry;
}

async function postNewLead(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const defaultCountry = await brandCountry(deps, user);
  const values = typedValues(request.body, NEW_FIELDS);
  let parsed: ReturnType<typeof parseTypedLead>;
  try {
    parsed = parseTypedLead(values, defaultCountry);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return sendPage(reply, newLeadPage({ user, defaultCountry, values, errors: error.errors }), 422);
  }
  const actor = userActor(user);
  const created = await createLead(
    deps.database,
    {
      brandId: user.brandId,
      source: parsed.source,
      keyId: null,
      keyName: null,
      user: { id: actor.id, name: actor.name },
    },
    parsed.input,
  );
  return seeOther(reply, `/dashboard/leads/${created.id}?created=1`);
}

async function showEdit(
  deps: RouteDeps,
  reply: FastifyReply,
  user: SessionUser,
  id: string,
  values: Record<string, string> | undefined,
  errors: readonly FieldError[],
) {
  const lead = await getLead(deps.database, user.brandId, id);
  const defaultCountry = await brandCountry(deps, user);
  const page = editLeadPage({ user, lead, defaultCountry, values: values ?? editLeadValues(lead), errors });
  return sendPage(reply, page, errors.length ? 422 : 200);
}

async function postEdit(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const id = pathParam(request, 'id');
  const values = typedValues(request.body, EDITABLE_FIELDS);
  let changes: ReturnType<typeof parseLeadChanges>;
  try {
    changes = parseLeadChanges(values);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return showEdit(deps, reply, user, id, values, error.errors);
  }
  const { changed } = await updateLead(deps.database, user.brandId, id, changes, userActor(user));
  const edited = changed.length ? changed.join(',') : 'none';
  return seeOther(reply, `/dashboard/leads/${id}?edited=${encodeURIComponent(edited)}`);
}

// The customer a lead with this email and phone would be added to if saved now: the same lookup as saving
// (matchCustomer → findCustomerFor, as linkCustomer). A phone is read like the new-lead form reads it.
async function customerMatch(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const site = request.headers['sec-fetch-site'];
  reply.header('Cache-Control', 'no-store');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return reply.code(403).send({ error: 'same-origin only' });
  }
  const query = request.query;
  const email = text(query, 'email').trim();
  const phone = text(query, 'phone').trim();
  const country = normalizeCountry(text(query, 'country')) || (await brandCountry(deps, user));
  const none = { match: null, rule: null };
  // Something that would not save (a half-typed email, too few digits) links to nobody yet.
  if (email && (email.length > 254 || !isValidEmail(email))) return reply.send(none);
  let e164: string | null = null;
  if (phone) {
    if (phone.length > 40) return reply.send(none);
    const result = typedPhone(phone, country);
    if ('error' in result) return reply.send(none);
    e164 = result.phone;
  }
  return reply.send(await matchCustomer(deps.database, user.brandId, { email: email || null, phone: e164 }));
}

export default async function leadEntryRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  app.get('/leads/new', { schema: hidden, config: userPage }, async (request, reply) => {
    const user = userOf(request);
    const brand = await findBrand(deps.database, user.brandId);
    if (!brand) throw new NotFoundError(`No brand with id ${user.brandId}`);
    const { defaultCountry, defaultPriority } = brand;
    return sendPage(
      reply,
      newLeadPage({
        user,
        defaultCountry,
        values: newLeadValues(defaultCountry, defaultPriority),
        errors: [],
      }),
    );
  });
  app.post('/leads/new', { schema: hidden, config: userPage }, (request, reply) =>
    postNewLead(deps, request, reply),
  );
  app.get('/leads/:id/edit', { schema: hidden, config: userPage }, async (request, reply) =>
    showEdit(deps, reply, userOf(request), pathParam(request, 'id'), undefined, []),
  );
  app.post('/leads/:id/edit', { schema: hidden, config: userPage }, (request, reply) =>
    postEdit(deps, request, reply),
  );
  app.get('/customers/match', { schema: hidden, config: userPage }, (request, reply) =>
    customerMatch(deps, request, reply),
  );
}
