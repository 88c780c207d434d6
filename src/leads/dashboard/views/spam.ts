// Spam: form posts that filled the hidden honeypot, kept 30 days, with "Not spam" to make one a lead.

import type { SessionUser } from '../../../accounts/sessions.js';
import { csrfField, time } from '../../../platform/web/components.js';
import { phoneText } from '../../../platform/web/format.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { page } from '../../../platform/web/layout.js';
import { richText } from '../../../platform/web/messages.js';
import { type Translator, translator } from '../../../shared/i18n/index.js';
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

const COLUMNS = {
  received: 'spam.column.received',
  request: 'spam.column.request',
  sentBy: 'spam.column.sentBy',
  form: 'spam.column.form',
  actions: 'spam.column.actions',
} as const;

function row(tr: Translator, lead: SpamLead, user: SessionUser): SafeHtml {
  const label = html`<span class="visually-hidden"> ${lead.title}</span>`;
  return html`<tr id="${lead.id}">
    <td data-label="${tr.t(COLUMNS.received)}">${time(lead.receivedAt)}</td>
    <td data-label="${tr.t(COLUMNS.request)}" class="cell-title">${lead.title}${
      lead.description ? html`<span class="sub">${shorten(lead.description)}</span>` : ''
    }</td>
    <td data-label="${tr.t(COLUMNS.sentBy)}">${contactCell(lead, user.brandCountry)}</td>
    <td data-label="${tr.t(COLUMNS.form)}">${lead.formName ?? html`<span class="muted">—</span>`}</td>
    <td data-label="${tr.t(COLUMNS.actions)}"><div class="actions">
      <form method="post" action="${SPAM_PATH}/${lead.id}/release">
        ${csrfField(user.csrfToken)}
        <button type="submit" class="button button-primary">${tr.t('spam.release')}${label}</button>
      </form>
      <form method="post" action="${SPAM_PATH}/${lead.id}/delete" data-confirm="${tr.t('spam.deleteConfirm')}">
        ${csrfField(user.csrfToken)}
        <button type="submit" class="button button-danger-quiet">${tr.t('spam.delete')}${label}</button>
      </form>
    </div></td>
  </tr>`;
}

export function spamPage(view: SpamView): SafeHtml {
  const tr = translator(view.user.locale);
  const list = view.leads.length
    ? html`<table class="list">
  <thead><tr>
    <th scope="col">${tr.t(COLUMNS.received)}</th><th scope="col">${tr.t(COLUMNS.request)}</th><th scope="col">${tr.t(COLUMNS.sentBy)}</th><th scope="col">${tr.t(COLUMNS.form)}</th>
    <th scope="col"><span class="visually-hidden">${tr.t(COLUMNS.actions)}</span></th>
  </tr></thead>
  <tbody>${view.leads.map((lead) => row(tr, lead, view.user))}</tbody>
</table>`
    : html`<div class="empty"><p>${tr.t(view.first ? 'spam.empty' : 'spam.emptyOlder')}</p></div>`;
  return page({
    title: tr.t('spam.title'),
    user: view.user,
    section: 'leads',
    body: html`<p class="breadcrumb"><a href="/dashboard/leads">${tr.t('lead.back.leads')}</a></p>
<div class="page-head">
  <h1>${tr.t('spam.title')}</h1>
  <p class="muted">${tr.t('spam.intro')}</p>
</div>
${view.message ?? ''}
${list}
${
  !view.first || view.olderHref
    ? html`<nav class="pager" aria-label="${tr.t('list.pager.label')}">
  ${view.first ? html`<span></span>` : html`<a class="button button-quiet" href="${SPAM_PATH}">${tr.t('list.pager.newest')}</a>`}
  ${view.olderHref ? html`<a class="button" href="${view.olderHref}" rel="next">${tr.t('list.pager.older')}</a>` : ''}
</nav>`
    : ''
}`,
  });
}

/** The way to Spam from the lead list: always there, with how many are held back when there are any. */
export function spamLink(tr: Translator, count: number): SafeHtml {
  return count
    ? html`<a class="button button-quiet" href="${SPAM_PATH}">${richText(tr, 'spam.linkHeld', {
        count,
        badge: (inner) => html`<span class="badge badge-cancelled">${inner}</span>`,
        hidden: (inner) => html`<span class="visually-hidden">${inner}</span>`,
      })}</a>`
    : html`<a href="${SPAM_PATH}">${tr.t('spam.title')}</a>`;
}
