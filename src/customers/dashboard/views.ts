// One customer's page: contact details, type, and every lead and work item of that customer, newest first.

import type { SessionUser } from '../../accounts/sessions.js';
import { priorityBadge, statusBadge } from '../../leads/dashboard/views/labels.js';
import type { CustomerLead } from '../../leads/index.js';
import { detailRow, phoneLink, time } from '../../platform/web/components.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import { page } from '../../platform/web/layout.js';
import { richText } from '../../platform/web/messages.js';
import { type Translator, translator } from '../../shared/i18n/index.js';
import type { CustomerActivity } from '../activity.js';
import type { CustomerDetail } from '../customers.js';
import { CONTACT_FIELDS, CUSTOMER_FIELD_LABELS, customerTypeLabel, fieldLabel } from '../fields.js';
import type { Duplicate } from '../merge.js';
import { customerTitle } from '../names.js';
import { personalDataCard } from './personal-data-view.js';
import { duplicatesSection, historySection } from './sections.js';

export interface CustomerView {
  user: SessionUser;
  customer: CustomerDetail;
  /** The newest of the customer's leads and work items (customer.leadCount says how many there are). */
  leads: CustomerLead[];
  /** What was done to the customer, oldest first (the page shows it newest first). */
  activity: readonly CustomerActivity[];
  /** Other customers that are probably the same. */
  duplicates: readonly Duplicate[];
  /** What the last post did (edited, merged), if anything. */
  message?: SafeHtml | undefined;
}

/** What a business customer is called in lists and headings: its company; a person: their name. */
function leadAddress(lead: CustomerLead): string {
  const street = [lead.address.street, lead.address.streetNumber].filter(Boolean).join(' ');
  const place = [lead.address.postalCode, lead.address.city].filter(Boolean).join(' ');
  return [street, place].filter(Boolean).join(', ');
}

function leadTable(tr: Translator, leads: CustomerLead[]): SafeHtml {
  const job = tr.t('leads.column.job');
  const state = tr.t('leads.column.state');
  const priority = tr.t('leads.column.priority');
  const received = tr.t('leads.column.received');
  const address = tr.t('customer.column.address');
  return html`<table class="list customer-leads">
  <thead><tr>
    <th scope="col">${job}</th><th scope="col">${state}</th><th scope="col">${priority}</th>
    <th scope="col">${received}</th><th scope="col">${address}</th>
  </tr></thead>
  <tbody>${leads.map(
    (lead) => html`<tr>
    <td data-label="${job}" class="cell-title"><a href="/dashboard/leads/${lead.id}">${lead.title}</a></td>
    <td data-label="${state}">${statusBadge(tr, lead.status)}</td>
    <td data-label="${priority}">${priorityBadge(tr, lead.priority)}</td>
    <td data-label="${received}">${time(lead.receivedAt)}</td>
    <td data-label="${address}">${leadAddress(lead)}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

export function customerPage(view: CustomerView): SafeHtml {
  const { customer, leads, user } = view;
  const tr = translator(user.locale);
  const more = customer.leadCount > leads.length;
  const contact = (name: keyof typeof CONTACT_FIELDS) => fieldLabel(tr, CONTACT_FIELDS[name]);
  const typeText = customerTypeLabel(tr, customer.type);
  const body = html`<p class="breadcrumb"><a href="/dashboard/customers">${tr.t('customers.back')}</a></p>
<div class="page-head">
  <h1 class="lead-title">${customerTitle(customer, tr.t('erase.erasedName'))}</h1>
  <p class="badges"><span class="badge badge-neutral">${typeText}</span> <span class="muted">${richText(tr, 'customer.since', { time: time(customer.createdAt) })}</span></p>
  ${customer.erased ? '' : html`<p class="actions"><a class="button" href="/dashboard/customers/${encodeURIComponent(customer.id)}/edit">${tr.t('customer.edit.button')}</a></p>`}
</div>
${view.message ?? ''}
<section class="card" aria-labelledby="contact-title">
  <h2 id="contact-title">${tr.t('customer.contact')}</h2>
  <dl>
    ${detailRow(contact('name'), customer.name)}
    ${detailRow(tr.t(CUSTOMER_FIELD_LABELS.type!), typeText)}
    ${detailRow(contact('companyName'), customer.companyName)}
    ${detailRow(contact('firstName'), customer.firstName)}
    ${detailRow(contact('lastName'), customer.lastName)}
    ${detailRow(contact('email'), customer.email ? html`<a href="mailto:${customer.email}">${customer.email}</a>` : null)}
    ${detailRow(contact('phone'), customer.phone ? phoneLink(customer.phone, user.brandCountry) : null)}
    ${detailRow(tr.t('customer.row.created'), time(customer.createdAt))}
    ${detailRow(tr.t('customer.row.updated'), customer.updatedAt !== customer.createdAt ? time(customer.updatedAt) : null)}
    ${detailRow(tr.t('customer.row.leadCount'), tr.number(customer.leadCount))}
    ${detailRow(tr.t('customer.row.latestLead'), customer.lastLeadAt ? time(customer.lastLeadAt) : null)}
    ${detailRow(tr.t('lead.row.reference'), html`<code>${customer.id}</code>`)}
  </dl>
</section>
<section aria-labelledby="leads-title">
  <h2 id="leads-title">${tr.t('customer.leads.title')}</h2>
  <p class="muted">${tr.t('customer.leads.intro')}</p>
  ${leads.length ? leadTable(tr, leads) : html`<div class="empty"><p>${tr.t('customer.leads.none')}</p></div>`}
  ${more ? html`<p class="muted">${tr.t('customer.leads.more', { shown: leads.length, total: customer.leadCount })}</p>` : ''}
</section>
${customer.erased ? '' : duplicatesSection(tr, user, customer.id, view.duplicates)}
${personalDataCard({ user, customer })}
${historySection(tr, view.activity)}`;
  return page({
    title: customerTitle(customer, tr.t('erase.erasedName')),
    user,
    section: 'customers',
    body,
  });
}
