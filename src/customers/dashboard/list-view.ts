// The customers list: everyone a lead came in for, newest first, with a search, the count and the pages.

import type { SessionUser } from '../../accounts/sessions.js';
import { customerHref, errorSummary, phoneLink, time } from '../../platform/web/components.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import { withQuery } from '../../platform/web/http.js';
import { page } from '../../platform/web/layout.js';
import type { FieldError } from '../../shared/errors.js';
import { type Translator, translator } from '../../shared/i18n/index.js';
import type { Page } from '../../shared/paging.js';
import type { CustomerDetail } from '../customers.js';
import { customerTitle } from '../names.js';

export const CUSTOMERS_PATH = '/dashboard/customers';

export interface CustomerListView {
  user: SessionUser;
  /** The search as typed (trimmed), and the page's cursor. */
  q: string;
  cursor: string;
  result: Page<CustomerDetail>;
  /** How many customers the search matches, and how many come before this page (absent when the query is bad). */
  count?: { total: number; before: number } | undefined;
  /** The search is too short to find anything (fewer than 3 characters besides spaces). */
  tooShort: boolean;
  errors: FieldError[];
}

function filterForm(tr: Translator, q: string): SafeHtml {
  return html`<form class="filters" method="get" action="${CUSTOMERS_PATH}" role="search">
  <div class="field field-grow">
    <label for="field-q">${tr.t('customers.search.label')}</label>
    <input id="field-q" name="q" type="search" value="${q}" maxlength="200" placeholder="${tr.t('customers.search.placeholder')}">
  </div>
  <div class="filter-actions">
    <button type="submit" class="button button-primary">${tr.t('customers.search.submit')}</button>
    ${q ? html`<a class="button button-quiet" href="${CUSTOMERS_PATH}">${tr.t('leads.filter.clear')}</a>` : ''}
  </div>
</form>`;
}

/** The customer's name (a business: its company, the person below it), linked to its page. */
function nameCell(tr: Translator, customer: CustomerDetail): SafeHtml {
  const title = customerTitle(customer, tr.t('erase.erasedName'));
  return html`<a href="${customerHref(customer.id)}">${title}</a>${
    customer.companyName && customer.name ? html`<span class="sub">${customer.name}</span>` : ''
  }${customer.erased ? html`<span class="sub">${tr.t('customers.erased')}</span>` : ''}`;
}

export function customerTable(tr: Translator, customers: CustomerDetail[], brandCountry: string): SafeHtml {
  const name = tr.t('customers.column.customer');
  const email = tr.t('customer.field.email');
  const phone = tr.t('customer.field.phone');
  const leads = tr.t('customer.row.leadCount');
  const latest = tr.t('customer.row.latestLead');
  return html`<table class="list customer-list">
  <thead><tr>
    <th scope="col">${name}</th><th scope="col">${email}</th><th scope="col">${phone}</th>
    <th scope="col" class="cell-number">${leads}</th><th scope="col">${latest}</th>
  </tr></thead>
  <tbody>${customers.map(
    (c) => html`<tr>
    <td data-label="${name}" class="cell-title">${nameCell(tr, c)}</td>
    <td data-label="${email}" class="cell-wrap">${c.email ? html`<a href="mailto:${c.email}">${c.email}</a>` : ''}</td>
    <td data-label="${phone}">${c.phone ? phoneLink(c.phone, brandCountry) : ''}</td>
    <td data-label="${leads}" class="cell-number">${tr.number(c.leadCount)}</td>
    <td data-label="${latest}">${time(c.lastLeadAt)}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

/** What an empty list says: none yet (they come with the first lead), or nothing for this search. */
function emptyState(tr: Translator, view: CustomerListView): SafeHtml {
  if (view.tooShort) {
    return html`<div class="empty"><p>${tr.t('search.tooShort', { q: view.q })}</p></div>`;
  }
  if (view.q) {
    return html`<div class="empty">
  <h2>${tr.t('search.nothingFor', { q: view.q })}</h2>
  <p>${tr.t('customers.empty.searchHint')}</p>
</div>`;
  }
  return html`<div class="empty">
  <h2>${tr.t('customers.empty.title')}</h2>
  <p>${tr.t('customers.empty.text')}</p>
</div>`;
}

/** "1–25 of 312" (the range this page shows), or "0 customers". */
function countText(tr: Translator, count: { total: number; before: number }, shown: number): string {
  if (!shown) return tr.t('customers.count.none', { count: count.total });
  return tr.t('leads.count.range', { from: count.before + 1, to: count.before + shown, total: count.total });
}

export function customerListPage(view: CustomerListView): SafeHtml {
  const tr = translator(view.user.locale);
  const { result, q } = view;
  const title = tr.t('customers.title');
  const body = html`<div class="page-head">
  <h1>${title}</h1>
  <p class="muted">${tr.t('customers.intro')}</p>
</div>
${filterForm(tr, q)}
${errorSummary(tr, view.errors, { q: tr.t('customers.search.label'), cursor: tr.t('leads.filter.page') })}
${view.count && result.data.length ? html`<div class="list-bar"><p class="muted list-count">${countText(tr, view.count, result.data.length)}</p></div>` : ''}
${result.data.length ? customerTable(tr, result.data, view.user.brandCountry) : view.errors.length ? '' : emptyState(tr, view)}
${
  view.cursor || result.nextCursor
    ? html`<nav class="pager" aria-label="${tr.t('list.pager.label')}">
  ${view.cursor ? html`<a class="button button-quiet" href="${withQuery(CUSTOMERS_PATH, { q })}">${tr.t('list.pager.newest')}</a>` : html`<span></span>`}
  ${result.nextCursor ? html`<a class="button" href="${withQuery(CUSTOMERS_PATH, { q, cursor: result.nextCursor })}" rel="next">${tr.t('list.pager.older')}</a>` : ''}
</nav>`
    : ''
}`;
  return page({ title, user: view.user, section: 'customers', body });
}
