// The customer page's History (edits, merges, downloads and erasure, newest first) and Likely duplicates (other
// customers that are probably the same, each with a link to merge it into this one, and a field to merge one by
// its reference).
import type { SessionUser } from '../../accounts/sessions.js';
import { phoneLink, time } from '../../platform/web/components.js';
import { type HtmlValue, html, type SafeHtml } from '../../platform/web/html.js';
import type { Translator } from '../../shared/i18n/index.js';
import type { CustomerActivity, CustomerActor } from '../activity.js';
import { CONTACT_FIELDS, CUSTOMER_FIELD_LABELS, fieldLabel } from '../fields.js';
import type { Duplicate } from '../merge.js';

/** Who did it, in a few words: "Sanne", "key Website", "the command line", "the retention rule". */
function actorWords(tr: Translator, actor: CustomerActor): string {
  if (actor.type === 'key') return tr.t('lead.actor.key', { name: actor.name ?? actor.id ?? '' });
  if (actor.type === 'cli') return tr.t('customer.actor.cli');
  if (actor.type === 'retention') return tr.t('customer.actor.retention');
  return actor.name ?? actor.id ?? '';
}

function shortValue(tr: Translator, value: unknown): string {
  if (value === null || value === undefined || value === '') return tr.t('lead.edited.empty');
  const text = String(value).replace(/\s+/g, ' ');
  return tr.t('lead.edited.value', { value: text.length > 60 ? `${text.slice(0, 59)}…` : text });
}

/** An edit's changes: "email “a@x.nl” → “b@x.nl”, phone (empty) → “+31…”"; only the field names after an erase. */
function updatedText(tr: Translator, detail: Record<string, unknown>): string {
  const changed = Array.isArray(detail.changed)
    ? detail.changed.filter((f): f is string => typeof f === 'string')
    : [];
  const from = detail.from as Record<string, unknown> | undefined;
  const to = detail.to as Record<string, unknown> | undefined;
  const label = (f: string) => {
    const key = CUSTOMER_FIELD_LABELS[f];
    return (key ? tr.t(key) : f).toLowerCase();
  };
  if (!from || !to) return changed.map(label).join(', ');
  return changed
    .map((f) =>
      tr.t('lead.edited.change', {
        field: label(f),
        from: shortValue(tr, from[f]),
        to: shortValue(tr, to[f]),
      }),
    )
    .join(', ');
}

function activityText(tr: Translator, entry: CustomerActivity): HtmlValue {
  switch (entry.kind) {
    case 'updated':
      return tr.t('customer.history.updated', { changes: updatedText(tr, entry.detail) });
    case 'merged':
      return html`${tr.t('customer.history.merged', { id: String(entry.detail.from ?? '') })}`;
    case 'exported':
      return tr.t('customer.history.exported');
    case 'erased':
      return tr.t('customer.history.erased');
    default:
      return String(entry.kind);
  }
}

/** The customer's history, newest first. */
export function historySection(tr: Translator, activity: readonly CustomerActivity[]): SafeHtml {
  const entries = [...activity].reverse();
  return html`<section class="card" id="history" aria-labelledby="history-title">
  <h2 id="history-title">${tr.t('customer.history.title')}</h2>
  ${
    entries.length
      ? html`<ol class="feed customer-history">${entries.map(
          (entry) =>
            html`<li class="feed-activity"><p class="feed-meta"><strong>${activityText(tr, entry)}</strong> <span aria-hidden="true">·</span> ${time(entry.at)} <span aria-hidden="true">·</span> <span class="feed-who">${tr.t('lead.feed.by', { who: actorWords(tr, entry.actor) })}</span></p></li>`,
        )}</ol>`
      : html`<p class="muted">${tr.t('customer.history.none')}</p>`
  }
</section>`;
}

/** Where a merge of `from` into `id` is confirmed. */
export function mergeHref(id: string, from: string): string {
  return `/dashboard/customers/${encodeURIComponent(id)}/merge?from=${encodeURIComponent(from)}`;
}

/** Other customers that are probably the same, and a field to merge any customer by its reference. */
export function duplicatesSection(
  tr: Translator,
  user: SessionUser,
  customerId: string,
  duplicates: readonly Duplicate[],
): SafeHtml {
  const label = (name: keyof typeof CONTACT_FIELDS) => fieldLabel(tr, CONTACT_FIELDS[name]);
  const leads = tr.t('customer.row.leadCount');
  return html`<section class="card" id="duplicates" aria-labelledby="duplicates-title">
  <h2 id="duplicates-title">${tr.t('customer.duplicates.title')}</h2>
  <p class="muted">${tr.t('customer.duplicates.intro')}</p>
  ${
    duplicates.length
      ? html`<table class="list customer-duplicates">
  <thead><tr>
    <th scope="col">${label('name')}</th><th scope="col">${label('email')}</th><th scope="col">${label('phone')}</th>
    <th scope="col">${leads}</th><th scope="col"><span class="visually-hidden">${tr.t('customer.duplicates.action')}</span></th>
  </tr></thead>
  <tbody>${duplicates.map(
    (d) => html`<tr>
    <td data-label="${label('name')}" class="cell-title"><a href="/dashboard/customers/${encodeURIComponent(d.id)}">${d.name}</a>${d.companyName ? html` <span class="muted">${d.companyName}</span>` : ''}</td>
    <td data-label="${label('email')}">${d.email ?? ''}</td>
    <td data-label="${label('phone')}">${d.phone ? phoneLink(d.phone, user.brandCountry) : ''}</td>
    <td data-label="${leads}">${tr.number(d.leadCount)}</td>
    <td><a class="button button-quiet" href="${mergeHref(customerId, d.id)}">${tr.t('customer.duplicates.merge')}</a></td>
  </tr>`,
  )}</tbody>
</table>`
      : html`<p class="muted">${tr.t('customer.duplicates.none')}</p>`
  }
  <form method="get" action="/dashboard/customers/${encodeURIComponent(customerId)}/merge" class="inline-form">
    <div class="field">
      <label for="field-from">${tr.t('customer.duplicates.byId')}</label>
      <p class="hint" id="field-from-hint">${tr.t('customer.duplicates.byIdHint')}</p>
      <input id="field-from" name="from" type="text" spellcheck="false" autocomplete="off" pattern="cus_[0-9a-z]+" aria-describedby="field-from-hint" class="mono">
    </div>
    <button type="submit" class="button">${tr.t('customer.duplicates.byIdSubmit')}</button>
  </form>
</section>`;
}
