// Typing a lead in (a phone call, an email, a visit) and editing one: the same fields and rules as the API.

import type { SessionUser } from '../../../accounts/sessions.js';
import type { FieldFormat } from '../../../customers/fields.js';
import { csrfField, errorFor, errorSummary, errorText, field } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { page } from '../../../platform/web/layout.js';
import { richText } from '../../../platform/web/messages.js';
import { countryChoices } from '../../../shared/countries.js';
import type { FieldError } from '../../../shared/errors.js';
import { type MessageKey, type Translator, translator } from '../../../shared/i18n/index.js';
import {
  leadField as fieldSpec,
  type LeadFieldName,
  type LeadGroup,
  leadFieldsWhere,
  newLeadFieldNames,
  officeLabel,
  readNameOf,
} from '../../fields.js';
import type { LeadDetail } from '../../index.js';
import { PRIORITIES } from '../../states.js';
import { EDITABLE_ADDRESS_FIELDS, EDITABLE_FIELDS, EDITABLE_JOB_FIELDS } from '../../update.js';
import { priorityLabel } from './labels.js';

/**
 * The lead fields as the office names them (forms/views.ts speaks to the customer: "Your name"), by API name, in
 * the reader's language.
 */
export function leadFieldLabels(tr: Translator): Record<string, string> {
  return {
    source: tr.t('lead.field.source'),
    ...Object.fromEntries(leadFieldsWhere({}).map((name) => [name, officeLabel(tr, name)])),
  };
}

/** How a typed-in lead came in: its `source`, with what the choice says. */
export const TYPED_SOURCES: readonly (readonly [string, MessageKey, MessageKey])[] = [
  ['phone', 'lead.typedSource.phone', 'lead.typedSource.phoneHint'],
  ['dashboard', 'lead.typedSource.other', 'lead.typedSource.otherHint'],
];

const INPUT_TYPES: Partial<Record<FieldFormat, string>> = { email: 'email', phone: 'tel' };

interface FormState {
  tr: Translator;
  values: Record<string, string>;
  errors: readonly FieldError[];
}

/**
 * A lead field as the field table declares it (fields.ts): label, hint, error beside it, the API's length limit;
 * textareas for long text, a choice for the priority.
 */
function leadField(name: LeadFieldName, state: FormState, defaultCountry: string): SafeHtml {
  const { tr } = state;
  const f = fieldSpec(name);
  const { maxLength, required } = f;
  const hint: SafeHtml | string | undefined = f.hint && tr.t(f.hint);
  const label = officeLabel(tr, name);
  const value = state.values[name] ?? '';
  const error = errorFor(state.errors, name);
  if (f.rows) {
    const id = `field-${name}`;
    const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
    return html`<div class="field${error ? ' field-invalid' : ''}">
  <label for="${id}">${label} <span class="optional">${tr.t('form.optional')}</span></label>
  ${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}
  ${error ? html`<p class="error" id="${id}-error">${errorText(tr, error, label)}</p>` : ''}
  <textarea id="${id}" name="${name}" rows="${f.rows}" maxlength="${maxLength}"${
    described ? html` aria-describedby="${described}"` : ''
  }${error ? html` aria-invalid="true"` : ''}>${value}</textarea>
</div>`;
  }
  if (f.format === 'country') {
    // A choice, never free text: "Nederland" typed into two letters was Niger (NE).
    const id = `field-${name}`;
    const chosen = (value || defaultCountry).toUpperCase();
    return html`<div class="field${error ? ' field-invalid' : ''}">
  <label for="${id}">${label}</label>
  ${error ? html`<p class="error" id="${id}-error">${errorText(tr, error, label)}</p>` : ''}
  <select id="${id}" name="${name}" autocomplete="country"${error ? html` aria-describedby="${id}-error" aria-invalid="true"` : ''}>${countryChoices(
    tr.locale,
  ).map(
    ([code, country]) =>
      html`<option value="${code}"${code === chosen ? html` selected` : ''}>${country}</option>`,
  )}</select>
</div>`;
  }
  if (f.format === 'priority') {
    const id = `field-${name}`;
    const selected = value || 'medium';
    return html`<div class="field${error ? ' field-invalid' : ''}">
  <label for="${id}">${label}</label>
  ${error ? html`<p class="error" id="${id}-error">${errorText(tr, error, label)}</p>` : ''}
  <select id="${id}" name="${name}"${error ? html` aria-describedby="${id}-error" aria-invalid="true"` : ''}>${PRIORITIES.map(
    (p) =>
      html`<option value="${p}"${p === selected ? html` selected` : ''}>${priorityLabel(tr, p)}</option>`,
  )}</select>
</div>`;
  }
  return field({
    tr,
    name,
    label,
    type: (f.format && INPUT_TYPES[f.format]) ?? 'text',
    value,
    hint,
    error,
    required,
    ...(f.officeAutocomplete ? { autocomplete: f.officeAutocomplete } : {}),
    attributes: html`maxlength="${maxLength}"`,
  });
}

/**
 * A section's fields in the page's order, two half-width fields in a row side by side; `after` adds what follows
 * a field (the customer match after the email).
 */
function leadFields(
  names: readonly LeadFieldName[],
  state: FormState,
  defaultCountry: string,
  after: (name: LeadFieldName) => SafeHtml | '' = () => '',
): SafeHtml {
  const parts: SafeHtml[] = [];
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const next = names[i + 1];
    if (fieldSpec(name).half && next && fieldSpec(next).half) {
      parts.push(html`<div class="grid-2 tight">
      ${leadField(name, state, defaultCountry)}
      ${leadField(next, state, defaultCountry)}
    </div>${after(name)}${after(next)}`);
      i++;
    } else {
      parts.push(html`${leadField(name, state, defaultCountry)}${after(name)}`);
    }
  }
  return html`${parts.map((part, i) => (i ? html`\n    ${part}` : part))}`;
}

/** The New lead page's fields of a section, in its order. */
const NEW_LEAD_FIELDS: Record<LeadGroup, readonly LeadFieldName[]> = {
  customer: newLeadFieldNames('customer'),
  job: newLeadFieldNames('job'),
  address: newLeadFieldNames('address'),
};
/** The Edit page's: the fields an edit saves (update.ts), in the same order. */
const EDIT_FIELDS: Record<'job' | 'address', readonly LeadFieldName[]> = {
  job: inPageOrder(EDITABLE_JOB_FIELDS),
  address: inPageOrder(EDITABLE_ADDRESS_FIELDS),
};

/** Fields in the New lead page's order; those it does not ask for after them. */
function inPageOrder(names: readonly LeadFieldName[]): LeadFieldName[] {
  const rank = (name: LeadFieldName) => fieldSpec(name).newLeadOrder ?? Number.POSITIVE_INFINITY;
  return [...names].sort((a, b) => rank(a) - rank(b));
}

export interface NewLeadView {
  user: SessionUser;
  defaultCountry: string;
  values: Record<string, string>;
  errors: readonly FieldError[];
}

/** The fields' values of an empty new lead: phone call, the brand's default priority and country. */
export function newLeadValues(defaultCountry: string, defaultPriority = 'medium'): Record<string, string> {
  return { source: 'phone', priority: defaultPriority, country: defaultCountry };
}

function sourceChoice(state: FormState): SafeHtml {
  const { tr } = state;
  const error = errorFor(state.errors, 'source');
  const current = state.values.source || 'phone';
  const legend = tr.t('lead.field.source');
  return html`<fieldset id="field-source"${error ? html` class="field-invalid" aria-describedby="field-source-error"` : ''}>
    <legend>${legend}</legend>
    ${error ? html`<p class="error" id="field-source-error">${errorText(tr, error, legend)}</p>` : ''}
    ${TYPED_SOURCES.map(
      ([value, label, hint]) => html`<div class="check">
      <input type="radio" id="source-${value}" name="source" value="${value}" aria-describedby="source-${value}-hint"${
        value === current ? html` checked` : ''
      }>
      <label for="source-${value}">${tr.t(label)}</label>
      <p class="hint" id="source-${value}-hint">${tr.t(hint)}</p>
    </div>`,
    )}
  </fieldset>`;
}

/** The new form's fields in the order it shows them, for the list of problems on top. */
const NEW_LEAD_ORDER = [
  'source',
  ...NEW_LEAD_FIELDS.customer,
  ...NEW_LEAD_FIELDS.job,
  ...NEW_LEAD_FIELDS.address,
];

function inFormOrder(errors: readonly FieldError[], order: readonly string[]): FieldError[] {
  const rank = (e: FieldError) => (order.includes(e.field) ? order.indexOf(e.field) : order.length);
  return [...errors].sort((a, b) => rank(a) - rank(b));
}

/**
 * After the email: the customer the lead would be added to, filled in by the page script as it is typed. The
 * script's sentences come with it in the reader's language, one per rule (email, phone) and plural category of the
 * customer's earlier jobs (Intl.PluralRules: one, other); the script puts the customer's link where `{name}` is
 * and their number of jobs where `{count}` is.
 */
function customerMatch(tr: Translator): (name: LeadFieldName) => SafeHtml | '' {
  const existing = (rule: 'email' | 'phone', count: 1 | 2) =>
    tr.t('lead.new.match.existing', { rule, count, name: '{name}', many: '{count}' });
  return (name) =>
    fieldSpec(name).format === 'email'
      ? html`\n    <p class="customer-match" id="customer-match" aria-live="polite" data-msg-new="${tr.t('lead.new.match.new')}" data-msg-email-one="${existing('email', 1)}" data-msg-email-other="${existing('email', 2)}" data-msg-phone-one="${existing('phone', 1)}" data-msg-phone-other="${existing('phone', 2)}"></p>`
      : '';
}

/** The new-lead page: who is calling first (the customer is suggested as the email or phone is typed), then the job, then where. */
export function newLeadPage(view: NewLeadView): SafeHtml {
  const tr = translator(view.user.locale);
  const state: FormState = { tr, values: view.values, errors: view.errors };
  const title = tr.t('leads.new');
  const body = html`<p class="breadcrumb"><a href="/dashboard/leads">${tr.t('lead.back.leads')}</a></p>
<div class="page-head">
  <h1>${title}</h1>
  <p class="muted">${tr.t('lead.new.intro')}</p>
</div>
${errorSummary(tr, inFormOrder(view.errors, NEW_LEAD_ORDER), leadFieldLabels(tr))}
<form method="post" action="/dashboard/leads/new" class="lead-form" novalidate data-customer-match="/dashboard/customers/match">
  ${csrfField(view.user.csrfToken)}
  <section class="card">
    ${sourceChoice(state)}
  </section>
  <section class="card" aria-labelledby="customer-title">
    <h2 id="customer-title">${tr.t('lead.section.customer')}</h2>
    ${leadFields(NEW_LEAD_FIELDS.customer, state, view.defaultCountry, customerMatch(tr))}
  </section>
  <section class="card" aria-labelledby="job-title">
    <h2 id="job-title">${tr.t('lead.section.job')}</h2>
    ${leadFields(NEW_LEAD_FIELDS.job, state, view.defaultCountry)}
  </section>
  <section class="card" aria-labelledby="address-title">
    <h2 id="address-title">${tr.t('lead.section.jobAddress')}</h2>
    ${leadFields(NEW_LEAD_FIELDS.address, state, view.defaultCountry)}
  </section>
  <div class="actions">
    <button type="submit" class="button button-primary">${tr.t('lead.new.save')}</button>
    <a class="button button-quiet" href="/dashboard/leads">${tr.t('lead.form.cancel')}</a>
  </div>
</form>`;
  return page({ title, user: view.user, section: 'leads', body });
}

export interface EditLeadView {
  user: SessionUser;
  lead: LeadDetail;
  defaultCountry: string;
  values: Record<string, string>;
  errors: readonly FieldError[];
}

/** What the edit form shows for a lead as it is: each field an edit saves, from where the lead holds it. */
export function editLeadValues(lead: LeadDetail): Record<string, string> {
  return Object.fromEntries(
    EDITABLE_FIELDS.map((name) => {
      const holder = { job: lead, customer: lead.customer, address: lead.address }[fieldSpec(name).group];
      const value = (holder as Record<string, unknown>)[readNameOf(name)];
      return [name, typeof value === 'string' ? value : ''];
    }),
  );
}

export function editLeadPage(view: EditLeadView): SafeHtml {
  const { lead } = view;
  const tr = translator(view.user.locale);
  const state: FormState = { tr, values: view.values, errors: view.errors };
  const body = html`<p class="breadcrumb"><a href="/dashboard/leads/${lead.id}">← ${lead.title}</a></p>
<div class="page-head">
  <h1>${tr.t('lead.edit.title')}</h1>
  <p class="muted">${richText(tr, 'lead.edit.intro', {
    link: (inner) =>
      html`<a href="/dashboard/customers/${encodeURIComponent(lead.customer.id)}">${inner}</a>`,
  })}</p>
</div>
${errorSummary(tr, inFormOrder(view.errors, NEW_LEAD_ORDER), leadFieldLabels(tr))}
<form method="post" action="/dashboard/leads/${lead.id}/edit" class="lead-form" novalidate>
  ${csrfField(view.user.csrfToken)}
  <section class="card" aria-labelledby="job-title">
    <h2 id="job-title">${tr.t('lead.section.job')}</h2>
    ${leadFields(EDIT_FIELDS.job, state, view.defaultCountry)}
  </section>
  <section class="card" aria-labelledby="address-title">
    <h2 id="address-title">${tr.t('lead.section.jobAddress')}</h2>
    <p class="muted">${tr.t('lead.edit.addressHint')}</p>
    ${leadFields(EDIT_FIELDS.address, state, view.defaultCountry)}
  </section>
  <div class="actions">
    <button type="submit" class="button button-primary">${tr.t('lead.edit.save')}</button>
    <a class="button button-quiet" href="/dashboard/leads/${lead.id}">${tr.t('lead.form.cancel')}</a>
  </div>
</form>`;
  return page({
    title: tr.t('lead.edit.pageTitle', { title: lead.title }),
    user: view.user,
    section: 'leads',
    body,
  });
}

function shortValue(tr: Translator, value: unknown): string {
  if (value === null || value === undefined || value === '') return tr.t('lead.edited.empty');
  const text = String(value).replace(/\s+/g, ' ');
  return tr.t('lead.edited.value', { value: text.length > 60 ? `${text.slice(0, 59)}…` : text });
}

/** An "edited" history entry's changes: "title “A” → “B”, priority “medium” → “high”". */
export function editedText(tr: Translator, detail: Record<string, unknown>): string {
  const changed = Array.isArray(detail.changed) ? detail.changed.filter((f) => typeof f === 'string') : [];
  const from = (detail.from ?? {}) as Record<string, unknown>;
  const to = (detail.to ?? {}) as Record<string, unknown>;
  const labels = leadFieldLabels(tr);
  return changed
    .map((f) =>
      tr.t('lead.edited.change', {
        field: (labels[f] ?? f).toLowerCase(),
        from: shortValue(tr, from[f]),
        to: shortValue(tr, to[f]),
      }),
    )
    .join(', ');
}
