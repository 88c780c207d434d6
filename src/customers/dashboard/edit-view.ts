// The customer's Edit page: name, first and last name, company, email and phone, with each field's error beside
// it and the typed values kept; an email another customer has offers to merge that customer instead.
import type { SessionUser } from '../../accounts/sessions.js';
import { csrfField, errorFor, errorSummary, field, notice } from '../../platform/web/components.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import { page } from '../../platform/web/layout.js';
import { richText } from '../../platform/web/messages.js';
import type { FieldError } from '../../shared/errors.js';
import { translator } from '../../shared/i18n/index.js';
import { formatPhone } from '../../shared/phone.js';
import type { CustomerDetail } from '../customers.js';
import { EDITABLE_CONTACT_FIELDS } from '../edit.js';
import { CONTACT_FIELDS, type ContactField, fieldLabel } from '../fields.js';
import { customerTitle } from '../names.js';
import { mergeHref } from './sections.js';

export interface EditCustomerView {
  user: SessionUser;
  customer: CustomerDetail;
  /** The values to show, by field name: the customer's, or what was typed. */
  values: Record<string, string>;
  errors: readonly FieldError[];
  /** The customer that already has the typed email, if that is why it was not saved. */
  emailTakenBy?: string | undefined;
}

/** The form's first values: the customer's, the phone as people write it in the brand's country. */
export function editCustomerValues(customer: CustomerDetail, brandCountry: string): Record<string, string> {
  return Object.fromEntries(
    EDITABLE_CONTACT_FIELDS.map((name) => {
      const value = customer[name];
      if (name === 'phone' && value) return [name, formatPhone(value, brandCountry)];
      return [name, value ?? ''];
    }),
  );
}

const INPUT_TYPES: Partial<Record<ContactField, string>> = { email: 'email', phone: 'tel' };

export function editCustomerPage(view: EditCustomerView): SafeHtml {
  const { customer, user } = view;
  const tr = translator(user.locale);
  const labels = Object.fromEntries(
    EDITABLE_CONTACT_FIELDS.map((name) => [name, fieldLabel(tr, CONTACT_FIELDS[name])]),
  );
  const title = customerTitle(customer);
  const body = html`<p class="breadcrumb"><a href="/dashboard/customers/${encodeURIComponent(customer.id)}">← ${title}</a></p>
<div class="page-head">
  <h1>${tr.t('customer.edit.title')}</h1>
  <p class="muted">${tr.t('customer.edit.intro')}</p>
</div>
${errorSummary(tr, view.errors, labels)}
${
  view.emailTakenBy
    ? notice(
        richText(tr, 'customer.edit.emailTakenMerge', {
          link: (inner) => html`<a href="${mergeHref(customer.id, view.emailTakenBy ?? '')}">${inner}</a>`,
        }),
        'info',
      )
    : ''
}
<form method="post" action="/dashboard/customers/${encodeURIComponent(customer.id)}/edit" class="lead-form" novalidate>
  ${csrfField(user.csrfToken)}
  <section class="card" aria-labelledby="contact-title">
    <h2 id="contact-title">${tr.t('customer.contact')}</h2>
    ${EDITABLE_CONTACT_FIELDS.map((name) =>
      field({
        tr,
        name,
        label: labels[name] ?? name,
        type: INPUT_TYPES[name] ?? 'text',
        value: view.values[name] ?? '',
        error: errorFor(view.errors, name),
        required: CONTACT_FIELDS[name].required,
        autocomplete: 'off',
      }),
    )}
  </section>
  <div class="actions">
    <button type="submit" class="button button-primary">${tr.t('lead.edit.save')}</button>
    <a class="button button-quiet" href="/dashboard/customers/${encodeURIComponent(customer.id)}">${tr.t('lead.form.cancel')}</a>
  </div>
</form>`;
  return page({ title: tr.t('customer.edit.pageTitle', { name: title }), user, section: 'customers', body });
}
