// The page that confirms a merge of two customers: both side by side, what will happen spelled out, and one
// button that posts it. Also where a reference typed on the customer page that names no customer is answered.
import type { SessionUser } from '../../accounts/sessions.js';
import type { CustomerDetail } from '../../customers/customers.js';
import { CONTACT_FIELDS, type ContactField, fieldLabel, fieldWords } from '../../customers/fields.js';
import { customerTitle } from '../../customers/names.js';
import { csrfField, detailRow, notice, phoneLink, time } from '../../platform/web/components.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import { page } from '../../platform/web/layout.js';
import { type Translator, translator } from '../../shared/i18n/index.js';

export interface MergeView {
  user: SessionUser;
  /** The customer that stays. */
  keep: CustomerDetail;
  /** The customer merged into it, when `from` names one that can be. */
  from?: CustomerDetail | undefined;
  /** What `from` was typed as (kept in the field when it names nobody). */
  typed: string;
  /** Why the merge cannot be done as asked, in the reader's words. */
  problem?: string | undefined;
}

function customerCard(
  tr: Translator,
  user: SessionUser,
  customer: CustomerDetail,
  heading: string,
): SafeHtml {
  const label = (name: ContactField) => fieldLabel(tr, CONTACT_FIELDS[name]);
  return html`<section class="card" aria-label="${heading}">
  <h2>${heading}: <a href="/dashboard/customers/${encodeURIComponent(customer.id)}">${customerTitle(customer)}</a></h2>
  <dl>
    ${detailRow(label('name'), customer.name)}
    ${detailRow(label('companyName'), customer.companyName)}
    ${detailRow(label('firstName'), customer.firstName)}
    ${detailRow(label('lastName'), customer.lastName)}
    ${detailRow(label('email'), customer.email)}
    ${detailRow(label('phone'), customer.phone ? phoneLink(customer.phone, user.brandCountry) : null)}
    ${detailRow(tr.t('customer.row.leadCount'), tr.number(customer.leadCount))}
    ${detailRow(tr.t('customer.row.created'), time(customer.createdAt))}
    ${detailRow(tr.t('lead.row.reference'), html`<code>${customer.id}</code>`)}
  </dl>
</section>`;
}

/** The kept customer's empty fields that `from` would fill. */
export function fieldsFilled(keep: CustomerDetail, from: CustomerDetail): ContactField[] {
  return (Object.keys(CONTACT_FIELDS) as ContactField[]).filter((f) => keep[f] === null && from[f] !== null);
}

function consequences(tr: Translator, keep: CustomerDetail, from: CustomerDetail): SafeHtml {
  const fromName = customerTitle(from);
  const keepName = customerTitle(keep);
  const filled = fieldWords(tr, fieldsFilled(keep, from));
  return html`<ul class="prose">
    <li>${tr.t('customer.merge.leads', { count: from.leadCount, from: fromName, keep: keepName })}</li>
    <li>${tr.t('customer.merge.addresses', { from: fromName, keep: keepName })}</li>
    <li>${filled ? tr.t('customer.merge.fills', { fields: filled }) : tr.t('customer.merge.fillsNothing', { keep: keepName })}</li>
    <li>${tr.t('customer.merge.history', { from: fromName })}</li>
    <li><strong>${tr.t('customer.merge.removed', { from: fromName, id: from.id })}</strong></li>
  </ul>`;
}

export function mergePage(view: MergeView): SafeHtml {
  const { keep, from, user } = view;
  const tr = translator(user.locale);
  const keepHref = `/dashboard/customers/${encodeURIComponent(keep.id)}`;
  const body = html`<p class="breadcrumb"><a href="${keepHref}">← ${customerTitle(keep)}</a></p>
<div class="page-head">
  <h1>${tr.t('customer.merge.title')}</h1>
  <p class="muted">${tr.t('customer.merge.intro')}</p>
</div>
${view.problem ? notice(view.problem, 'error') : ''}
${
  from && !view.problem
    ? html`${customerCard(tr, user, from, tr.t('customer.merge.fromHeading'))}
${customerCard(tr, user, keep, tr.t('customer.merge.keepHeading'))}
<section class="card" aria-labelledby="what-title">
  <h2 id="what-title">${tr.t('customer.merge.whatHappens')}</h2>
  ${consequences(tr, keep, from)}
  <form method="post" action="${keepHref}/merge">
    ${csrfField(user.csrfToken)}
    <input type="hidden" name="from" value="${from.id}">
    <div class="actions">
      <button type="submit" class="button button-danger button-wrap">${tr.t('customer.merge.submit', { from: customerTitle(from), keep: customerTitle(keep) })}</button>
      <a class="button button-quiet" href="${keepHref}">${tr.t('lead.form.cancel')}</a>
    </div>
  </form>
</section>`
    : html`<form method="get" action="${keepHref}/merge" class="card">
  <div class="field">
    <label for="field-from">${tr.t('customer.duplicates.byId')}</label>
    <p class="hint" id="field-from-hint">${tr.t('customer.duplicates.byIdHint')}</p>
    <input id="field-from" name="from" type="text" value="${view.typed}" spellcheck="false" autocomplete="off" aria-describedby="field-from-hint" class="mono">
  </div>
  <button type="submit" class="button">${tr.t('customer.duplicates.byIdSubmit')}</button>
</form>`
}`;
  return page({
    title: tr.t('customer.merge.pageTitle', { name: customerTitle(keep) }),
    user,
    section: 'customers',
    body,
  });
}
