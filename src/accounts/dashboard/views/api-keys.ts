// Settings > API keys (admins only): create (the secret shown once), list with who created each, revoke with a
// confirmation step.

import { csrfField, errorFor, errorSummary, field, notice, time } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { page } from '../../../platform/web/layout.js';
import type { FieldError } from '../../../shared/errors.js';
import type { ApiKey, CreatedApiKey } from '../../api-keys.js';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../api-keys.js';
import type { SessionUser } from '../../sessions.js';

const LABELS: Record<string, string> = {
  name: 'Name',
  scopes: 'Scopes',
  readsPerMinute: 'Reads per minute',
  writesPerMinute: 'Writes per minute',
};

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
function creator(key: ApiKey, currentUserIds: ReadonlySet<string>): string {
  if (key.createdBy === 'cli') return 'the command line';
  if (!key.createdBy) return 'unknown';
  const removed = key.createdByUserId !== null && !currentUserIds.has(key.createdByUserId);
  return removed ? `${key.createdBy} (removed)` : key.createdBy;
}

function keyState(key: ApiKey): SafeHtml {
  if (key.revokedAt) return html`<span class="badge badge-cancelled">Revoked</span>`;
  if (key.expiresAt && Date.parse(key.expiresAt) <= Date.now()) {
    return html`<span class="badge badge-cancelled">Expired</span>`;
  }
  return html`<span class="badge badge-completed">Active</span>`;
}

function createdPanel(created: CreatedApiKey, publicUrl: string): SafeHtml {
  return html`<section class="card card-highlight" aria-labelledby="new-key-title">
  <h2 id="new-key-title">Your new key “${created.name}”</h2>
  <p class="warning-text"><strong>Copy it now. You will not see it again:</strong> lead-intake keeps only a fingerprint of it.</p>
  <div class="copy-row">
    <label class="visually-hidden" for="new-key">New API key</label>
    <input id="new-key" class="mono" type="text" value="${created.key}" readonly autofocus spellcheck="false">
    <button type="button" class="button button-primary" data-copy="new-key" hidden>Copy</button>
    <span class="visually-hidden" role="status" data-copy-status="new-key"></span>
  </div>
  <p class="hint">Send it in the <code>X-API-Key</code> header. For example:</p>
  <pre class="code">curl ${publicUrl}/v1/leads -H "X-API-Key: ${created.key}"</pre>
</section>`;
}

function createForm(view: ApiKeysView): SafeHtml {
  const { values, errors } = view;
  const scopeError = errorFor(errors, 'scopes');
  return html`<section class="card" aria-labelledby="create-title">
  <h2 id="create-title">Create a key</h2>
  ${errorSummary(errors, LABELS)}
  <form method="post" action="/dashboard/settings/api-keys" novalidate>
    ${csrfField(view.user.csrfToken)}
    ${field({
      name: 'name',
      label: 'Name',
      value: values.name,
      hint: 'Where the key will be used, e.g. “Website contact form”. Leads created with it show this name.',
      error: errorFor(errors, 'name'),
      required: true,
      attributes: html`maxlength="100"`,
    })}
    <fieldset id="field-scopes" class="${scopeError ? 'field-invalid' : ''}"${scopeError ? html` aria-describedby="scopes-error"` : ''}>
      <legend>Scopes</legend>
      ${scopeError ? html`<p class="error" id="scopes-error">Scopes ${scopeError}.</p>` : ''}
      ${SCOPES.map(
        (scope) => html`<div class="check">
        <input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}" aria-describedby="scope-${scope}-hint"${
          values.scopes.includes(scope) ? html` checked` : ''
        }>
        <label for="scope-${scope}"><code>${scope}</code></label>
        <p class="hint" id="scope-${scope}-hint">${SCOPE_DESCRIPTIONS[scope]}</p>
      </div>`,
      )}
    </fieldset>
    <details class="more"${values.readsPerMinute || values.writesPerMinute ? html` open` : ''}>
      <summary>Rate limits</summary>
      <div class="grid-2 tight">
        ${field({
          name: 'readsPerMinute',
          label: 'Reads per minute',
          type: 'number',
          value: values.readsPerMinute,
          hint: `Empty for the default (${view.defaultLimits.readsPerMinute}).`,
          error: errorFor(errors, 'readsPerMinute'),
          attributes: html`min="1" max="1000000" inputmode="numeric"`,
        })}
        ${field({
          name: 'writesPerMinute',
          label: 'Writes per minute',
          type: 'number',
          value: values.writesPerMinute,
          hint: `Empty for the default (${view.defaultLimits.writesPerMinute}).`,
          error: errorFor(errors, 'writesPerMinute'),
          attributes: html`min="1" max="1000000" inputmode="numeric"`,
        })}
      </div>
    </details>
    <button type="submit" class="button button-primary">Create key</button>
  </form>
</section>`;
}

function keyTable(keys: ApiKey[], currentUserIds: ReadonlySet<string>): SafeHtml {
  if (!keys.length) return html`<div class="empty"><p>No keys yet.</p></div>`;
  return html`<table class="list">
  <thead><tr>
    <th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Created</th>
    <th scope="col">Last used</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th>
  </tr></thead>
  <tbody>${keys.map(
    (key) => html`<tr${key.revokedAt ? html` class="row-muted"` : ''}>
    <td data-label="Name" class="cell-title">${key.name}</td>
    <td data-label="Key"><code>lik_${key.displayPrefix}…</code></td>
    <td data-label="Scopes">${key.scopes.map((s) => html`<code class="scope">${s}</code> `)}</td>
    <td data-label="Created"><div>${time(key.createdAt)}<span class="sub">by ${creator(key, currentUserIds)}</span></div></td>
    <td data-label="Last used">${key.lastUsedAt ? time(key.lastUsedAt) : html`<span class="muted">Never</span>`}</td>
    <td data-label="State">${keyState(key)}</td>
    <td data-label="Actions">${
      key.revokedAt
        ? ''
        : html`<a class="button button-danger-quiet" href="/dashboard/settings/api-keys/${key.id}/revoke">Revoke<span class="visually-hidden"> ${key.name}</span></a>`
    }</td>
  </tr>`,
  )}</tbody>
</table>`;
}

export function apiKeysPage(view: ApiKeysView): SafeHtml {
  return page({
    title: 'API keys',
    user: view.user,
    section: 'api-keys',
    body: html`<div class="page-head">
  <h1>API keys</h1>
  <p class="muted">Keys let your website and tools send and read leads of ${view.user.brandName}. Keep them secret: never put one in public code.</p>
</div>
${view.message ?? ''}
${view.created ? createdPanel(view.created, view.publicUrl) : ''}
${createForm(view)}
<section aria-labelledby="keys-title">
  <h2 id="keys-title">Your keys</h2>
  ${keyTable(view.keys, view.currentUserIds)}
</section>`,
  });
}

export function revokeConfirmPage(user: SessionUser, key: ApiKey): SafeHtml {
  return page({
    title: `Revoke ${key.name}`,
    user,
    section: 'api-keys',
    body: html`<p class="breadcrumb"><a href="/dashboard/settings/api-keys">← API keys</a></p>
<section class="card narrow" aria-labelledby="revoke-title">
  <h1 id="revoke-title">Revoke “${key.name}”?</h1>
  <p>Key <code>lik_${key.displayPrefix}…</code> with scopes ${key.scopes.join(', ')}.</p>
  <p>Everything that uses it stops working: the API answers <strong>401</strong> within seconds on every server. This cannot be undone; you can create a new key.</p>
  <form method="post" action="/dashboard/settings/api-keys/${key.id}/revoke" class="actions">
    ${csrfField(user.csrfToken)}
    <button type="submit" class="button button-danger">Revoke key</button>
    <a class="button button-quiet" href="/dashboard/settings/api-keys">Keep it</a>
  </form>
</section>`,
  });
}

export function revokedNotice(name: string): SafeHtml {
  return notice(html`Key “${name}” is revoked.`);
}

/** On reload or Back after "Create key": the secret was on the page once and is not shown again. */
export function keyShownOnceNotice(name: string): SafeHtml {
  return notice(
    html`Key “${name}” is created. Its secret was shown once and is not shown again: if you did not copy it, revoke the key and create a new one.`,
    'info',
  );
}
