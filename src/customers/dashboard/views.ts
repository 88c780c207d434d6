// One customer's page: contact details, type, and every lead and work item of that customer, newest first.

import type { SessionUser } from '../../accounts/sessions.js';
import { priorityBadge, statusBadge } from '../../leads/dashboard/views/labels.js';
import type { CustomerLead } from '../../leads/index.js';
import { detailRow, phoneLink, time } from '../../platform/web/components.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import { page } from '../../platform/web/layout.js';
import type { CustomerDetail } from '../customers.js';
import { customerTitle, typeLabel } from '../names.js';

export interface CustomerView {
  user: SessionUser;
  customer: CustomerDetail;
  /** The newest of the customer's leads and work items (customer.leadCount says how many there are). */
  leads: CustomerLead[];
}

/** What a business customer is called in lists and headings: its company; a person: their name. */
function leadAddress(lead: CustomerLead): string {
  const street = [lead.address.street, lead.address.streetNumber].filter(Boolean).join(' ');
  const place = [lead.address.postalCode, lead.address.city].filter(Boolean).join(' ');
  return [street, place].filter(Boolean).join(', ');
}

function leadTable(leads: CustomerLead[]): SafeHtml {
  return html`<table class="list customer-leads">
  <thead><tr>
    <th scope="col">Job</th><th scope="col">State</th><th scope="col">Priority</th>
    <th scope="col">Received</th><th scope="col">Address</th>
  </tr></thead>
  <tbody>${leads.map(
    (lead) => html`<tr>
    <td data-label="Job" class="cell-title"><a href="/dashboard/leads/${lead.id}">${lead.title}</a></td>
    <td data-label="State">${statusBadge(lead.status)}</td>
    <td data-label="Priority">${priorityBadge(lead.priority)}</td>
    <td data-label="Received">${time(lead.receivedAt)}</td>
    <td data-label="Address">${leadAddress(lead)}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

export function customerPage(view: CustomerView): SafeHtml {
  const { customer, leads, user } = view;
  const more = customer.leadCount > leads.length;
  const body = html`<p class="breadcrumb"><a href="/dashboard/leads">← Leads</a></p>
<div class="page-head">
  <h1 class="lead-title">${customerTitle(customer)}</h1>
  <p class="badges"><span class="badge badge-neutral">${typeLabel(customer.type)}</span> <span class="muted">Customer since ${time(customer.createdAt)}</span></p>
</div>
<section class="card" aria-labelledby="contact-title">
  <h2 id="contact-title">Contact</h2>
  <dl>
    ${detailRow('Name', customer.name)}
    ${detailRow('Type', typeLabel(customer.type))}
    ${detailRow('Company', customer.companyName)}
    ${detailRow('First name', customer.firstName)}
    ${detailRow('Last name', customer.lastName)}
    ${detailRow('Email', customer.email ? html`<a href="mailto:${customer.email}">${customer.email}</a>` : null)}
    ${detailRow('Phone', customer.phone ? phoneLink(customer.phone, user.brandCountry) : null)}
    ${detailRow('Created', time(customer.createdAt))}
    ${detailRow('Updated', customer.updatedAt !== customer.createdAt ? time(customer.updatedAt) : null)}
    ${detailRow('Leads', String(customer.leadCount))}
    ${detailRow('Latest lead', customer.lastLeadAt ? time(customer.lastLeadAt) : null)}
    ${detailRow('Reference', html`<code>${customer.id}</code>`)}
  </dl>
</section>
<section aria-labelledby="leads-title">
  <h2 id="leads-title">Leads and work items</h2>
  <p class="muted">Every lead and work item of this customer, in any state, newest first.</p>
  ${leads.length ? leadTable(leads) : html`<div class="empty"><p>This customer has no leads.</p></div>`}
  ${more ? html`<p class="muted">Showing the newest ${leads.length} of ${customer.leadCount}.</p>` : ''}
</section>`;
  return page({ title: customerTitle(customer), user, body });
}
