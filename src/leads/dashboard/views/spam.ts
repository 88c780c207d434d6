// Spam: form posts that filled the hidden honeypot, kept 30 days, with "Not spam" to make one a lead.

import type { SessionUser } from '../../../accounts/sessions.js';
import { csrfField, time } from '../../../platform/web/components.js';
import { phoneText } from '../../../platform/web/format.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { page } from '../../../platform/web/layout.js';
import type { SpamLead } from '../../spam.js';

export const SPAM_PATH = '/dashboard/spam';

export interface SpamView {
  user: SessionUser;
  leads: SpamLead[];
  /** The first page: "← Newest" is not needed. */
  first: boolean;
  olderHref?: string | undefined;
  message?: SafeHtml | undefined;
}

const MAX_DESCRIPTION = 200;

function shorten(text: string | null): string {
  if (!text) return '';
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
}

function contactCell(lead: SpamLead, brandCountry: string): SafeHtml {
  const s = lead.submitted;
  const phone = s.phone ? phoneText(s.phone, brandCountry) : null;
  const lines = [s.customerName, s.companyName, s.email, phone].filter((v): v is string => Boolean(v));
  return html`${lines.map((line, i) => (i === 0 ? html`<div>${line}</div>` : html`<span class="sub">${line}</span>`))}`;
}

function row(lead: SpamLead, user: SessionUser): SafeHtml {
  const label = html`<span class="visually-hidden"> ${lead.title}</span>`;
  return html`<tr id="${lead.id}">
    <td data-label="Received">${time(lead.receivedAt)}</td>
    <td data-label="Request" class="cell-title">${lead.title}${
      lead.description ? html`<span class="sub">${shorten(lead.description)}</span>` : ''
    }</td>
    <td data-label="Sent by">${contactCell(lead, user.brandCountry)}</td>
    <td data-label="Form">${lead.formName ?? html`<span class="muted">—</span>`}</td>
    <td data-label="Actions"><div class="actions">
      <form method="post" action="${SPAM_PATH}/${lead.id}/release">
        ${csrfField(user.csrfToken)}
        <button type="submit" class="button button-primary">Not spam${label}</button>
      </form>
      <form method="post" action="${SPAM_PATH}/${lead.id}/delete" data-confirm="Delete this spam now? It cannot be brought back.">
        ${csrfField(user.csrfToken)}
        <button type="submit" class="button button-danger-quiet">Delete${label}</button>
      </form>
    </div></td>
  </tr>`;
}

export function spamPage(view: SpamView): SafeHtml {
  const list = view.leads.length
    ? html`<table class="list">
  <thead><tr>
    <th scope="col">Received</th><th scope="col">Request</th><th scope="col">Sent by</th><th scope="col">Form</th>
    <th scope="col"><span class="visually-hidden">Actions</span></th>
  </tr></thead>
  <tbody>${view.leads.map((lead) => row(lead, view.user))}</tbody>
</table>`
    : html`<div class="empty"><p>${
        view.first
          ? 'No spam. Form posts that fill the hidden spam trap show up here, in case one was a real request.'
          : 'No older spam.'
      }</p></div>`;
  return page({
    title: 'Spam',
    user: view.user,
    section: 'leads',
    body: html`<p class="breadcrumb"><a href="/dashboard/leads">← Leads</a></p>
<div class="page-head">
  <h1>Spam</h1>
  <p class="muted">Posts to your website forms that filled the hidden spam trap, newest first. They are in no list, send no email and fire no webhook, and are removed after 30 days. “Not spam” moves one to your leads as if it had just arrived: the customer is linked, the new-lead email and webhooks follow.</p>
</div>
${view.message ?? ''}
${list}
${
  !view.first || view.olderHref
    ? html`<nav class="pager" aria-label="Pages">
  ${view.first ? html`<span></span>` : html`<a class="button button-quiet" href="${SPAM_PATH}">← Newest</a>`}
  ${view.olderHref ? html`<a class="button" href="${view.olderHref}" rel="next">Older →</a>` : ''}
</nav>`
    : ''
}`,
  });
}

/** The way to Spam from the lead list: always there, with how many are held back when there are any. */
export function spamLink(count: number): SafeHtml {
  return count
    ? html`<a class="button button-quiet" href="${SPAM_PATH}">Spam <span class="badge badge-cancelled">${count}</span><span class="visually-hidden"> held back</span></a>`
    : html`<a href="${SPAM_PATH}">Spam</a>`;
}
