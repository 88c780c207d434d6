// Settings > API keys (admins only): create (the secret shown once), list with who created each, revoke with a
// confirmation step.

import {
  codeChoice,
  copyField,
  createCard,
  csrfField,
  errorFor,
  field,
  notice,
  time,
} from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { page, settingsPage } from '../../../platform/web/layout.js';
import { richText } from '../../../platform/web/messages.js';
import type { FieldError } from '../../../shared/errors.js';
import { type MessageKey, type Translator, translator } from '../../../shared/i18n/index.js';
import type { ApiKey, CreatedApiKey, Scope } from '../../api-keys.js';
import { SCOPES } from '../../api-keys.js';
import type { SessionUser } from '../../sessions.js';

/** What each scope allows, as people read it (the API's own descriptions stay English, in shared/scopes). */
const SCOPE_TEXT: Record<Scope, MessageKey> = {
  'leads:read': 'apiKeys.scope.leadsRead',
  'leads:write': 'apiKeys.scope.leadsWrite',
  'work-items:read': 'apiKeys.scope.workItemsRead',
  'customers:read': 'apiKeys.scope.customersRead',
  full: 'apiKeys.scope.full',
};

function labels(tr: Translator): Record<string, string> {
  return {
    name: tr.t('apiKeys.name.label'),
    scopes: tr.t('apiKeys.scopes.label'),
    readsPerMinute: tr.t('apiKeys.readsPerMinute.label'),
    writesPerMinute: tr.t('apiKeys.writesPerMinute.label'),
  };
}

export interface ApiKeysView {
  user: SessionUser;
  keys: ApiKey[];
  created?: CreatedApiKey | undefined;
  values: { name: string; scopes: string[]; readsPerMinute: string; writesPerMinute: string };
  errors: FieldError[];
  message?: SafeHtml | undefined;
  publicUrl: string;
  defaultLimits: { readsPerMinute: number; writesPerMinute: number };
  /** Ids of the brand's people now: a key's creator who is not among them has been removed. */
  currentUserIds: ReadonlySet<string>;
}

/** Who created a key, as recorded then; a removed creator is marked, and their key keeps working. */
function creator(tr: Translator, key: ApiKey, currentUserIds: ReadonlySet<string>): string {
  if (key.createdBy === 'cli') return tr.t('apiKeys.createdBy.cli');
  if (!key.createdBy) return tr.t('apiKeys.createdBy.unknown');
  const removed = key.createdByUserId !== null && !currentUserIds.has(key.createdByUserId);
  return removed
    ? tr.t('apiKeys.createdBy.removed', { email: key.createdBy })
    : tr.t('apiKeys.createdBy.person', { email: key.createdBy });
}

function keyState(tr: Translator, key: ApiKey): SafeHtml {
  if (key.revokedAt) return html`<span class="badge badge-cancelled">${tr.t('apiKeys.state.revoked')}</span>`;
  if (key.expiresAt && Date.parse(key.expiresAt) <= Date.now()) {
    return html`<span class="badge badge-cancelled">${tr.t('apiKeys.state.expired')}</span>`;
  }
  return html`<span class="badge badge-completed">${tr.t('apiKeys.state.active')}</span>`;
}

function createdPanel(tr: Translator, created: CreatedApiKey, publicUrl: string): SafeHtml {
  return html`<section class="card card-highlight" aria-labelledby="new-key-title">
  <h2 id="new-key-title">${tr.t('apiKeys.created.title', { name: created.name })}</h2>
  <p class="warning-text">${richText(tr, 'apiKeys.created.warning', { strong: (inner) => html`<strong>${inner}</strong>` })}</p>
  ${copyField(tr, { id: 'new-key', label: tr.t('apiKeys.created.label'), value: created.key })}
  <p class="hint">${richText(tr, 'apiKeys.created.howTo', { code: (inner) => html`<code>${inner}</code>` })}</p>
  <pre class="code">curl ${publicUrl}/v1/leads -H "X-API-Key: ${created.key}"</pre>
</section>`;
}

function createForm(tr: Translator, view: ApiKeysView): SafeHtml {
  const { values, errors } = view;
  const scopeError = errorFor(errors, 'scopes');
  const label = labels(tr);
  // A key's own rate limit, per minute: empty is the default.
  const limitField = (name: 'readsPerMinute' | 'writesPerMinute') =>
    field({
      tr,
      name,
      label: label[name]!,
      type: 'number',
      value: values[name],
      hint: tr.t('apiKeys.limit.hint', { default: view.defaultLimits[name] }),
      error: errorFor(errors, name),
      attributes: html`min="1" max="1000000" inputmode="numeric"`,
    });
  const fields = html`${field({
    tr,
    name: 'name',
    label: label.name!,
    value: values.name,
    hint: tr.t('apiKeys.name.hint'),
    error: errorFor(errors, 'name'),
    required: true,
    attributes: html`maxlength="100"`,
  })}
    ${codeChoice(tr, {
      name: 'scopes',
      idPrefix: 'scope',
      legend: label.scopes!,
      error: scopeError,
      codes: SCOPES,
      checked: values.scopes,
      hint: (scope) => tr.t(SCOPE_TEXT[scope as Scope]),
    })}
    <details class="more"${values.readsPerMinute || values.writesPerMinute ? html` open` : ''}>
      <summary>${tr.t('apiKeys.rateLimits')}</summary>
      <div class="grid-2 tight">
        ${limitField('readsPerMinute')}
        ${limitField('writesPerMinute')}
      </div>
    </details>`;
  return createCard(tr, {
    title: tr.t('apiKeys.create.title'),
    errors,
    labels: label,
    action: '/dashboard/settings/api-keys',
    csrfToken: view.user.csrfToken,
    fields,
    submit: tr.t('apiKeys.create.submit'),
  });
}

function keyTable(tr: Translator, keys: ApiKey[], currentUserIds: ReadonlySet<string>): SafeHtml {
  if (!keys.length) return html`<div class="empty"><p>${tr.t('apiKeys.none')}</p></div>`;
  const h = {
    name: tr.t('apiKeys.name.label'),
    key: tr.t('apiKeys.table.key'),
    scopes: tr.t('apiKeys.scopes.label'),
    created: tr.t('apiKeys.table.created'),
    lastUsed: tr.t('apiKeys.table.lastUsed'),
    state: tr.t('apiKeys.table.state'),
    actions: tr.t('users.table.actions'),
  };
  const hidden = (inner: SafeHtml) => html`<span class="visually-hidden">${inner}</span>`;
  return html`<table class="list">
  <thead><tr>
    <th scope="col">${h.name}</th><th scope="col">${h.key}</th><th scope="col">${h.scopes}</th><th scope="col">${h.created}</th>
    <th scope="col">${h.lastUsed}</th><th scope="col">${h.state}</th><th scope="col"><span class="visually-hidden">${h.actions}</span></th>
  </tr></thead>
  <tbody>${keys.map(
    (key) => html`<tr${key.revokedAt ? html` class="row-muted"` : ''}>
    <td data-label="${h.name}" class="cell-title">${key.name}</td>
    <td data-label="${h.key}"><code>lik_${key.displayPrefix}…</code></td>
    <td data-label="${h.scopes}">${key.scopes.map((s) => html`<code class="scope">${s}</code> `)}</td>
    <td data-label="${h.created}"><div>${time(key.createdAt)}<span class="sub">${creator(tr, key, currentUserIds)}</span></div></td>
    <td data-label="${h.lastUsed}">${key.lastUsedAt ? time(key.lastUsedAt) : html`<span class="muted">${tr.t('apiKeys.neverUsed')}</span>`}</td>
    <td data-label="${h.state}">${keyState(tr, key)}</td>
    <td data-label="${h.actions}">${
      key.revokedAt
        ? ''
        : html`<a class="button button-danger-quiet" href="/dashboard/settings/api-keys/${key.id}/revoke">${richText(tr, 'apiKeys.revoke', { name: key.name, hidden })}</a>`
    }</td>
  </tr>`,
  )}</tbody>
</table>`;
}

export function apiKeysPage(view: ApiKeysView): SafeHtml {
  const tr = translator(view.user.locale);
  return settingsPage(view, {
    title: tr.t('apiKeys.title'),
    section: 'api-keys',
    intro: tr.t('apiKeys.intro', { brand: view.user.brandName }),
    body: html`${view.created ? createdPanel(tr, view.created, view.publicUrl) : ''}
${createForm(tr, view)}
<section aria-labelledby="keys-title">
  <h2 id="keys-title">${tr.t('apiKeys.yourKeys')}</h2>
  ${keyTable(tr, view.keys, view.currentUserIds)}
</section>`,
  });
}

export function revokeConfirmPage(user: SessionUser, key: ApiKey): SafeHtml {
  const tr = translator(user.locale);
  const code = (inner: SafeHtml) => html`<code>${inner}</code>`;
  return page({
    title: tr.t('apiKeys.revokeConfirm.title', { name: key.name }),
    user,
    section: 'api-keys',
    body: html`<p class="breadcrumb"><a href="/dashboard/settings/api-keys">← ${tr.t('apiKeys.title')}</a></p>
<section class="card narrow" aria-labelledby="revoke-title">
  <h1 id="revoke-title">${tr.t('apiKeys.revokeConfirm.heading', { name: key.name })}</h1>
  <p>${richText(tr, 'apiKeys.revokeConfirm.key', { prefix: `lik_${key.displayPrefix}…`, scopes: key.scopes.join(', '), code })}</p>
  <p>${richText(tr, 'apiKeys.revokeConfirm.explain', { strong: (inner) => html`<strong>${inner}</strong>` })}</p>
  <form method="post" action="/dashboard/settings/api-keys/${key.id}/revoke" class="actions">
    ${csrfField(user.csrfToken)}
    <button type="submit" class="button button-danger">${tr.t('apiKeys.revokeConfirm.submit')}</button>
    <a class="button button-quiet" href="/dashboard/settings/api-keys">${tr.t('apiKeys.revokeConfirm.keep')}</a>
  </form>
</section>`,
  });
}

export function revokedNotice(tr: Translator, name: string): SafeHtml {
  return notice(tr.t('apiKeys.notice.revoked', { name }));
}

/** On reload or Back after "Create key": the secret was on the page once and is not shown again. */
export function keyShownOnceNotice(tr: Translator, name: string): SafeHtml {
  return notice(tr.t('apiKeys.notice.shownOnce', { name }), 'info');
}

/** After first-run setup: what to do next. */
export function welcomeNotice(tr: Translator, brand: string): SafeHtml {
  return notice(
    richText(tr, 'apiKeys.notice.welcome', { brand, strong: (inner) => html`<strong>${inner}</strong>` }),
  );
}
