// Typing a lead in (a phone call, an email, a visit) and editing one: the same fields and rules as the API.

import type { SessionUser } from '../../../accounts/sessions.js';
import { csrfField, errorFor, errorSummary, field } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { page } from '../../../platform/web/layout.js';
import type { FieldError } from '../../../shared/errors.js';
import type { LeadDetail } from '../../index.js';
import { LEAD_FIELDS } from '../../input.js';
import { PRIORITIES } from '../../states.js';
import { PRIORITY_LABELS } from './labels.js';

/** The lead fields as the office names them (forms/views.ts speaks to the customer: "Your name"). */
export const LEAD_FIELD_LABELS: Record<string, string> = {
  source: 'How did it come in',
  customerName: 'Name',
  firstName: 'First name',
  lastName: 'Last name',
  email: 'Email',
  phone: 'Phone',
  companyName: 'Company',
  title: 'Job title',
  description: 'Description',
  category: 'Category',
  priority: 'Priority',
  budgetQuote: 'Budget',
  notes: 'Notes',
  street: 'Street',
  streetNumber: 'House number',
  streetNumberAddition: 'Addition',
  postalCode: 'Postal code',
  city: 'City',
  country: 'Country',
};

/** How a typed-in lead came in: its `source`, with what the choice says. */
export const TYPED_SOURCES = [
  ['phone', 'Phone call', 'Someone called and you are typing it in now.'],
  ['dashboard', 'Other', 'Typed in from an email, a visit, a note, …'],
] as const;

const RULES = new Map(LEAD_FIELDS.map((f) => [f.name, f]));
const AUTOCOMPLETE: Record<string, string> = { email: 'off', phone: 'off', customerName: 'off' };
const INPUT_TYPES: Record<string, string> = { email: 'email', phone: 'tel' };

interface FormState {
  values: Record<string, string>;
  errors: readonly FieldError[];
}

/** A lead field: label, hint, error beside it, the API's length limit; textareas for long text. */
function leadField(name: string, state: FormState, hint?: SafeHtml | string): SafeHtml {
  const rule = RULES.get(name);
  const maxLength = rule?.maxLength ?? 200;
  const required = rule?.required ?? false;
  const label = LEAD_FIELD_LABELS[name] ?? name;
  const value = state.values[name] ?? '';
  const error = errorFor(state.errors, name);
  if (name === 'description' || name === 'notes') {
    const id = `field-${name}`;
    const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
    return html`<div class="field${error ? ' field-invalid' : ''}">
  <label for="${id}">${label} <span class="optional">(optional)</span></label>
  ${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}
  ${error ? html`<p class="error" id="${id}-error">${label} ${error}.</p>` : ''}
  <textarea id="${id}" name="${name}" rows="${name === 'description' ? 4 : 2}" maxlength="${maxLength}"${
    described ? html` aria-describedby="${described}"` : ''
  }${error ? html` aria-invalid="true"` : ''}>${value}</textarea>
</div>`;
  }
  if (name === 'priority') {
    const id = 'field-priority';
    const selected = value || 'medium';
    return html`<div class="field${error ? ' field-invalid' : ''}">
  <label for="${id}">${label}</label>
  ${error ? html`<p class="error" id="${id}-error">${label} ${error}.</p>` : ''}
  <select id="${id}" name="priority"${error ? html` aria-describedby="${id}-error" aria-invalid="true"` : ''}>${PRIORITIES.map(
    (p) =>
      html`<option value="${p}"${p === selected ? html` selected` : ''}>${PRIORITY_LABELS[p] ?? p}</option>`,
  )}</select>
</div>`;
  }
  return field({
    name,
    label,
    type: INPUT_TYPES[name] ?? 'text',
    value,
    hint,
    error,
    required,
    ...(AUTOCOMPLETE[name] ? { autocomplete: AUTOCOMPLETE[name] } : {}),
    attributes:
      name === 'country'
        ? html`maxlength="${maxLength}" class="input-short" spellcheck="false"`
        : html`maxlength="${maxLength}"`,
  });
}

function jobFields(state: FormState): SafeHtml {
  return html`${leadField('title', state, 'In a few words, e.g. “Leaking tap in the kitchen”.')}
  ${leadField('description', state)}
  <div class="grid-2 tight">
    ${leadField('category', state, 'The trade, e.g. “Plumbing”.')}
    ${leadField('priority', state)}
  </div>
  ${leadField('budgetQuote', state, 'What the customer has in mind, e.g. “€ 500–1,000”.')}`;
}

function addressFields(state: FormState, defaultCountry: string): SafeHtml {
  return html`<div class="grid-2 tight">
    ${leadField('postalCode', state)}
    ${leadField('city', state)}
  </div>
  ${leadField('street', state)}
  <div class="grid-2 tight">
    ${leadField('streetNumber', state)}
    ${leadField('streetNumberAddition', state, 'E.g. “A” or “bis”.')}
  </div>
  ${leadField('country', state, html`Two letters, e.g. <code>NL</code>. Empty: ${defaultCountry}.`)}`;
}

export interface NewLeadView {
  user: SessionUser;
  defaultCountry: string;
  values: Record<string, string>;
  errors: readonly FieldError[];
}

/** The fields' values of an empty new lead: phone call, medium priority, the brand's country. */
export function newLeadValues(defaultCountry: string): Record<string, string> {
  return { source: 'phone', priority: 'medium', country: defaultCountry };
}

function sourceChoice(state: FormState): SafeHtml {
  const error = errorFor(state.errors, 'source');
  const current = state.values.source || 'phone';
  return html`<fieldset id="field-source"${error ? html` class="field-invalid" aria-describedby="field-source-error"` : ''}>
    <legend>${LEAD_FIELD_LABELS.source}</legend>
    ${error ? html`<p class="error" id="field-source-error">${LEAD_FIELD_LABELS.source} ${error}.</p>` : ''}
    ${TYPED_SOURCES.map(
      ([value, label, hint]) => html`<div class="check">
      <input type="radio" id="source-${value}" name="source" value="${value}" aria-describedby="source-${value}-hint"${
        value === current ? html` checked` : ''
      }>
      <label for="source-${value}">${label}</label>
      <p class="hint" id="source-${value}-hint">${hint}</p>
    </div>`,
    )}
  </fieldset>`;
}

/** The new form's fields in the order it shows them, for the list of problems on top. */
const NEW_LEAD_ORDER = [
  'source',
  'customerName',
  'phone',
  'email',
  'companyName',
  'firstName',
  'lastName',
  'title',
  'description',
  'category',
  'priority',
  'budgetQuote',
  'notes',
  'postalCode',
  'city',
  'street',
  'streetNumber',
  'streetNumberAddition',
  'country',
];

function inFormOrder(errors: readonly FieldError[], order: readonly string[]): FieldError[] {
  const rank = (e: FieldError) => (order.includes(e.field) ? order.indexOf(e.field) : order.length);
  return [...errors].sort((a, b) => rank(a) - rank(b));
}

/** The new-lead page: who is calling first (the customer is suggested as the email or phone is typed), then the job, then where. */
export function newLeadPage(view: NewLeadView): SafeHtml {
  const state: FormState = { values: view.values, errors: view.errors };
  const body = html`<p class="breadcrumb"><a href="/dashboard/leads">← Leads</a></p>
<div class="page-head">
  <h1>New lead</h1>
  <p class="muted">For a job that comes in by phone, email or at the door. It is saved like any other lead: the customer is found by email or phone, and everyone who gets new-lead emails is told.</p>
</div>
${errorSummary(inFormOrder(view.errors, NEW_LEAD_ORDER), LEAD_FIELD_LABELS)}
<form method="post" action="/dashboard/leads/new" class="lead-form" novalidate data-customer-match="/dashboard/customers/match">
  ${csrfField(view.user.csrfToken)}
  <section class="card">
    ${sourceChoice(state)}
  </section>
  <section class="card" aria-labelledby="customer-title">
    <h2 id="customer-title">Customer</h2>
    ${leadField('customerName', state)}
    ${leadField('phone', state, 'As you hear it: 06 1234 5678, or +32 470 12 34 56 from abroad.')}
    ${leadField('email', state)}
    <p class="customer-match" id="customer-match" aria-live="polite"></p>
    ${leadField('companyName', state, 'For a business customer.')}
    <div class="grid-2 tight">
      ${leadField('firstName', state)}
      ${leadField('lastName', state)}
    </div>
  </section>
  <section class="card" aria-labelledby="job-title">
    <h2 id="job-title">Job</h2>
    ${jobFields(state)}
    ${leadField('notes', state)}
  </section>
  <section class="card" aria-labelledby="address-title">
    <h2 id="address-title">Address of the job</h2>
    ${addressFields(state, view.defaultCountry)}
  </section>
  <div class="actions">
    <button type="submit" class="button button-primary">Save lead</button>
    <a class="button button-quiet" href="/dashboard/leads">Cancel</a>
  </div>
</form>`;
  return page({ title: 'New lead', user: view.user, section: 'leads', body });
}

export interface EditLeadView {
  user: SessionUser;
  lead: LeadDetail;
  defaultCountry: string;
  values: Record<string, string>;
  errors: readonly FieldError[];
}

/** What the edit form shows for a lead as it is. */
export function editLeadValues(lead: LeadDetail): Record<string, string> {
  return {
    title: lead.title,
    description: lead.description ?? '',
    category: lead.category ?? '',
    priority: lead.priority,
    budgetQuote: lead.budgetQuote ?? '',
    street: lead.address.street,
    streetNumber: lead.address.streetNumber ?? '',
    streetNumberAddition: lead.address.streetNumberAddition ?? '',
    postalCode: lead.address.postalCode,
    city: lead.address.city,
    country: lead.address.country,
  };
}

export function editLeadPage(view: EditLeadView): SafeHtml {
  const { lead } = view;
  const state: FormState = { values: view.values, errors: view.errors };
  const body = html`<p class="breadcrumb"><a href="/dashboard/leads/${lead.id}">← ${lead.title}</a></p>
<div class="page-head">
  <h1>Edit lead</h1>
  <p class="muted">Each change is kept in the lead's history with your name. The customer's own details are changed on <a href="/dashboard/customers/${encodeURIComponent(lead.customer.id)}">the customer's page</a>.</p>
</div>
${errorSummary(inFormOrder(view.errors, NEW_LEAD_ORDER), LEAD_FIELD_LABELS)}
<form method="post" action="/dashboard/leads/${lead.id}/edit" class="lead-form" novalidate>
  ${csrfField(view.user.csrfToken)}
  <section class="card" aria-labelledby="job-title">
    <h2 id="job-title">Job</h2>
    ${jobFields(state)}
  </section>
  <section class="card" aria-labelledby="address-title">
    <h2 id="address-title">Address of the job</h2>
    <p class="muted">A different address is added to the customer's addresses; the old one stays for other jobs there.</p>
    ${addressFields(state, view.defaultCountry)}
  </section>
  <div class="actions">
    <button type="submit" class="button button-primary">Save changes</button>
    <a class="button button-quiet" href="/dashboard/leads/${lead.id}">Cancel</a>
  </div>
</form>`;
  return page({ title: `Edit ${lead.title}`, user: view.user, section: 'leads', body });
}

function shortValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(empty)';
  const text = String(value).replace(/\s+/g, ' ');
  return `“${text.length > 60 ? `${text.slice(0, 59)}…` : text}”`;
}

/** An "edited" history entry in words: "title “A” → “B”, priority “medium” → “high”". */
export function editedText(detail: Record<string, unknown>): string {
  const changed = Array.isArray(detail.changed) ? detail.changed.filter((f) => typeof f === 'string') : [];
  const from = (detail.from ?? {}) as Record<string, unknown>;
  const to = (detail.to ?? {}) as Record<string, unknown>;
  return changed
    .map((f) => `${(LEAD_FIELD_LABELS[f] ?? f).toLowerCase()} ${shortValue(from[f])} → ${shortValue(to[f])}`)
    .join(', ');
}
