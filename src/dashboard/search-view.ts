// The search across everything: leads, work items (any state) and customers, grouped, each group with its first
// few results and a link to all of them in its own list.

import type { SessionUser } from '../accounts/sessions.js';
import type { CustomerDetail } from '../customers/customers.js';
import { customerTable } from '../customers/dashboard/list-view.js';
import { leadListTable } from '../leads/dashboard/views/leads.js';
import type { AnyListItem } from '../leads/index.js';
import { errorText } from '../platform/web/components.js';
import { html, type SafeHtml } from '../platform/web/html.js';
import { page } from '../platform/web/layout.js';
import type { FieldError } from '../shared/errors.js';
import type { MessageKey, Translator } from '../shared/i18n/index.js';
import { translator } from '../shared/i18n/index.js';

export const SEARCH_PATH = '/dashboard/search';

/** One group of results: the first few, how many there are, and the list that shows them all. */
export interface SearchGroup<T> {
  items: T[];
  total: number;
  /** The list with this search (and every state of that list). */
  href: string;
}

export interface SearchResults {
  leads: SearchGroup<AnyListItem>;
  workItems: SearchGroup<AnyListItem>;
  customers: SearchGroup<CustomerDetail>;
}

export interface SearchView {
  user: SessionUser;
  /** The search as typed (trimmed); '' before anything was searched. */
  q: string;
  /** Fewer characters (spaces aside) than the text index can find anything with. */
  tooShort: boolean;
  /** Why the search was not run (too many words, control characters, over its time budget). */
  error?: FieldError | undefined;
  /** Absent when nothing was searched (no or too short a search). */
  results?: SearchResults | undefined;
}

function searchForm(tr: Translator, q: string): SafeHtml {
  return html`<form class="filters" method="get" action="${SEARCH_PATH}" role="search">
  <div class="field field-grow">
    <label for="field-q">${tr.t('search.label')}</label>
    <input id="field-q" name="q" type="search" value="${q}" maxlength="200" placeholder="${tr.t('search.placeholder')}"${q ? '' : html` autofocus`}>
  </div>
  <div class="filter-actions">
    <button type="submit" class="button button-primary">${tr.t('search.header.submit')}</button>
  </div>
</form>`;
}

function group<T>(
  tr: Translator,
  id: string,
  heading: MessageKey,
  note: MessageKey,
  found: SearchGroup<T>,
  rows: (items: T[]) => SafeHtml,
): SafeHtml {
  return html`<section class="search-group" aria-labelledby="${id}">
  <div class="search-group-head">
    <h2 id="${id}">${tr.t(heading)} <span class="badge badge-neutral">${tr.number(found.total)}</span></h2>
    <p class="muted">${tr.t(note)}</p>
  </div>
  ${
    found.items.length
      ? html`${rows(found.items)}
  <p class="search-all"><a href="${found.href}">${tr.t('search.all', { count: found.total })}</a></p>`
      : html`<p class="muted search-none">${tr.t('search.none')}</p>`
  }
</section>`;
}

function resultsOf(tr: Translator, view: SearchView, results: SearchResults): SafeHtml {
  const { user } = view;
  if (!results.leads.total && !results.workItems.total && !results.customers.total) {
    return html`<div class="empty">
  <h2>${tr.t('search.nothingFor', { q: view.q })}</h2>
  <p>${tr.t('search.hint')}</p>
</div>`;
  }
  const country = user.brandCountry;
  return html`<p class="muted">${tr.t('search.resultsFor', { q: view.q })}</p>
${group(tr, 'search-leads', 'search.group.leads', 'search.group.leadsNote', results.leads, (items) => leadListTable(tr, items, 'lead', country))}
${group(tr, 'search-work-items', 'search.group.workItems', 'search.group.workItemsNote', results.workItems, (items) => leadListTable(tr, items, 'work', country))}
${group(tr, 'search-customers', 'search.group.customers', 'search.group.customersNote', results.customers, (items) => customerTable(tr, items, country))}`;
}

export function searchPage(view: SearchView): SafeHtml {
  const tr = translator(view.user.locale);
  const title = view.q ? tr.t('search.pageTitle', { q: view.q }) : tr.t('search.title');
  const body = html`<div class="page-head">
  <h1>${tr.t('search.title')}</h1>
  <p class="muted">${tr.t('search.intro')}</p>
</div>
${searchForm(tr, view.q)}
${
  view.results
    ? resultsOf(tr, view, view.results)
    : view.error
      ? html`<div class="empty"><p class="error">${errorText(tr, view.error, tr.t('search.title'))}</p></div>`
      : html`<div class="empty"><p>${view.tooShort ? tr.t('search.tooShort', { q: view.q }) : tr.t('search.hint')}</p></div>`
}`;
  return page({ title, user: view.user, section: 'search', body });
}
