// Settings > Webhooks: endpoints (add with the secret shown once, enable/disable, rotate, delete) and each one's
// delivery log with "Send again".

import type { SessionUser } from '../../accounts/sessions.js';
import { csrfField, errorFor, errorSummary, field, notice, time } from '../../platform/web/components.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import { page } from '../../platform/web/layout.js';
import type { FieldError } from '../../shared/errors.js';
import type { WebhookDelivery } from '../deliveries.js';
import type { WebhookEndpoint } from '../endpoints.js';
import { EVENT_TYPES, type EventType } from '../events.js';

const LABELS: Record<string, string> = {
  url: 'URL',
  events: 'Events',
  description: 'Description',
};

const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  'lead.created': 'A lead arrives (through the API or the dashboard).',
  'lead.status_changed': 'A lead moves to another status, e.g. quoted or completed.',
  'lead.updated':
    'A lead is edited or its visit planned (date, duration, who does it), without a status change.',
  'note.created': 'Someone in the office adds an internal note to a lead.',
  'customer.created': 'A new customer is added by a lead from someone not seen before.',
  'customer.updated': "A customer's details change: filled in by a new lead, or updated in the dashboard.",
};

const BASE = '/dashboard/settings/webhooks';

/** A secret shown once: after creation or after a rotation. */
export interface ShownSecret {
  endpoint: WebhookEndpoint;
  secret: string;
  rotated: boolean;
}

export interface WebhooksView {
  user: SessionUser;
  endpoints: WebhookEndpoint[];
  shown?: ShownSecret | undefined;
  values: { url: string; events: string[]; description: string };
  errors: FieldError[];
  message?: SafeHtml | undefined;
}

function endpointState(endpoint: WebhookEndpoint): SafeHtml {
  if (endpoint.enabled) return html`<span class="badge badge-completed">Enabled</span>`;
  if (endpoint.disabledAt) return html`<span class="badge badge-cancelled">Disabled after failing</span>`;
  return html`<span class="badge badge-cancelled">Disabled</span>`;
}

function secretPanel(shown: ShownSecret): SafeHtml {
  const title = shown.rotated
    ? html`New signing secret for ${shown.endpoint.url}`
    : html`Signing secret for ${shown.endpoint.url}`;
  return html`<section class="card card-highlight" aria-labelledby="secret-title">
  <h2 id="secret-title" class="url-text">${title}</h2>
  <p class="warning-text"><strong>Copy it now. You will not see it again.</strong> Your receiver needs it to check the <code>Lead-Intake-Signature</code> or <code>webhook-signature</code> header.</p>
  <div class="copy-row">
    <label class="visually-hidden" for="new-secret">Signing secret</label>
    <input id="new-secret" class="mono" type="text" value="${shown.secret}" readonly autofocus spellcheck="false">
    <button type="button" class="button button-primary" data-copy="new-secret" hidden>Copy</button>
    <span class="visually-hidden" role="status" data-copy-status="new-secret"></span>
  </div>
  ${
    shown.rotated
      ? html`<p class="hint">For 24 hours deliveries are signed with both the new and the old secret, so you can switch your receiver without missing any.</p>`
      : ''
  }
</section>`;
}

function autoDisabledPanel(endpoints: WebhookEndpoint[], csrfToken: string): SafeHtml | '' {
  const failed = endpoints.filter((e) => !e.enabled && e.disabledAt);
  if (!failed.length) return '';
  return html`<section class="notice notice-error" role="alert" aria-labelledby="failed-title">
  <h2 id="failed-title">${failed.length === 1 ? 'An endpoint was' : `${failed.length} endpoints were`} disabled because deliveries kept failing</h2>
  <p>Nothing is sent to ${failed.length === 1 ? 'it' : 'them'} until you enable ${failed.length === 1 ? 'it' : 'them'} again.</p>
  <ul>${failed.map(
    (e) => html`<li>
    <p class="url-text"><strong>${e.url}</strong>, disabled ${time(e.disabledAt)}: ${e.disabledReason ?? 'deliveries kept failing.'}</p>
    <form method="post" action="${BASE}/${e.id}/enable" class="actions">
      ${csrfField(csrfToken)}
      <button type="submit" class="button button-primary">Enable again<span class="visually-hidden"> ${e.url}</span></button>
      <a href="${BASE}/${e.id}">See its deliveries</a>
    </form>
  </li>`,
  )}</ul>
</section>`;
}

function createForm(view: WebhooksView): SafeHtml {
  const { values, errors } = view;
  const eventsError = errorFor(errors, 'events');
  return html`<section class="card" aria-labelledby="create-title">
  <h2 id="create-title">Add an endpoint</h2>
  ${errorSummary(errors, LABELS)}
  <form method="post" action="${BASE}" novalidate>
    ${csrfField(view.user.csrfToken)}
    ${field({
      name: 'url',
      label: 'URL',
      type: 'url',
      value: values.url,
      hint: html`Where events are POSTed, e.g. <code>https://example.com/hooks/lead-intake</code>. It must use https.`,
      error: errorFor(errors, 'url'),
      required: true,
      attributes: html`maxlength="2048" spellcheck="false"`,
    })}
    <fieldset id="field-events" class="${eventsError ? 'field-invalid' : ''}"${eventsError ? html` aria-describedby="events-error"` : ''}>
      <legend>Events</legend>
      ${eventsError ? html`<p class="error" id="events-error">Events ${eventsError}.</p>` : ''}
      ${EVENT_TYPES.map(
        (type) => html`<div class="check">
        <input type="checkbox" id="event-${type}" name="events" value="${type}" aria-describedby="event-${type}-hint"${
          values.events.includes(type) ? html` checked` : ''
        }>
        <label for="event-${type}"><code>${type}</code></label>
        <p class="hint" id="event-${type}-hint">${EVENT_DESCRIPTIONS[type]}</p>
      </div>`,
      )}
    </fieldset>
    ${field({
      name: 'description',
      label: 'Description',
      value: values.description,
      hint: 'What receives the events, e.g. “CRM sync”.',
      error: errorFor(errors, 'description'),
      attributes: html`maxlength="500"`,
    })}
    <button type="submit" class="button button-primary">Add endpoint</button>
  </form>
</section>`;
}

function endpointActions(endpoint: WebhookEndpoint, csrfToken: string): SafeHtml {
  const label = html`<span class="visually-hidden"> ${endpoint.url}</span>`;
  const toggle = endpoint.enabled
    ? html`<form method="post" action="${BASE}/${endpoint.id}/disable" data-confirm="Disable ${endpoint.url}? Nothing is sent to it until you enable it again.">
      ${csrfField(csrfToken)}
      <button type="submit" class="button button-quiet">Disable${label}</button>
    </form>`
    : html`<form method="post" action="${BASE}/${endpoint.id}/enable">
      ${csrfField(csrfToken)}
      <button type="submit" class="button button-quiet">Enable${label}</button>
    </form>`;
  return html`<div class="actions">
    <a class="button button-quiet" href="${BASE}/${endpoint.id}">Deliveries${label}</a>
    ${toggle}
    <form method="post" action="${BASE}/${endpoint.id}/rotate-secret" data-confirm="Rotate the secret of ${endpoint.url}? The old one keeps signing deliveries for 24 hours.">
      ${csrfField(csrfToken)}
      <button type="submit" class="button button-quiet">Rotate secret${label}</button>
    </form>
    <a class="button button-danger-quiet" href="${BASE}/${endpoint.id}/delete">Delete${label}</a>
  </div>`;
}

function endpointTable(view: WebhooksView): SafeHtml {
  if (!view.endpoints.length) return html`<div class="empty"><p>No endpoints yet.</p></div>`;
  return html`<table class="list">
  <thead><tr>
    <th scope="col">URL</th><th scope="col">Events</th><th scope="col">Created</th><th scope="col">State</th>
    <th scope="col"><span class="visually-hidden">Actions</span></th>
  </tr></thead>
  <tbody>${view.endpoints.map(
    (e) => html`<tr${e.enabled ? '' : html` class="row-muted"`}>
    <td data-label="URL" class="cell-title"><a href="${BASE}/${e.id}">${e.url}</a>${
      e.description ? html`<span class="sub">${e.description}</span>` : ''
    }</td>
    <td data-label="Events">${e.events.map((t) => html`<code class="scope">${t}</code> `)}</td>
    <td data-label="Created">${time(e.createdAt)}</td>
    <td data-label="State">${endpointState(e)}</td>
    <td data-label="Actions">${endpointActions(e, view.user.csrfToken)}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

export function webhooksPage(view: WebhooksView): SafeHtml {
  return page({
    title: 'Webhooks',
    user: view.user,
    section: 'webhooks',
    body: html`<div class="page-head">
  <h1>Webhooks</h1>
  <p class="muted">Endpoints that receive the events of ${view.user.brandName} as signed JSON POSTs, retried for up to 24 hours.</p>
</div>
${view.message ?? ''}
${autoDisabledPanel(view.endpoints, view.user.csrfToken)}
${view.shown ? secretPanel(view.shown) : ''}
${createForm(view)}
<section aria-labelledby="endpoints-title">
  <h2 id="endpoints-title">Your endpoints</h2>
  ${endpointTable(view)}
</section>`,
  });
}

export function deleteConfirmPage(user: SessionUser, endpoint: WebhookEndpoint): SafeHtml {
  return page({
    title: `Delete ${endpoint.url}`,
    user,
    section: 'webhooks',
    body: html`<p class="breadcrumb"><a href="${BASE}">← Webhooks</a></p>
<section class="card narrow" aria-labelledby="delete-title">
  <h1 id="delete-title" class="url-text">Delete the endpoint ${endpoint.url}?</h1>
  <p>Events (${endpoint.events.join(', ')}) stop being sent to it at once, and its delivery log is deleted. This cannot be undone; you can add the URL again, with a new secret.</p>
  <form method="post" action="${BASE}/${endpoint.id}/delete" class="actions">
    ${csrfField(user.csrfToken)}
    <button type="submit" class="button button-danger">Delete endpoint</button>
    <a class="button button-quiet" href="${BASE}">Keep it</a>
  </form>
</section>`,
  });
}

const DELIVERY_STATUS: Record<WebhookDelivery['status'], SafeHtml> = {
  pending: html`<span class="badge badge-scheduled">Pending</span>`,
  succeeded: html`<span class="badge badge-completed">Succeeded</span>`,
  failed: html`<span class="badge badge-cancelled">Failed</span>`,
};

export interface DeliveriesView {
  user: SessionUser;
  endpoint: WebhookEndpoint;
  deliveries: WebhookDelivery[];
  /** Link to the next (older) page, when there is one. */
  olderHref?: string | undefined;
  message?: SafeHtml | undefined;
}

function deliveryRow(view: DeliveriesView, d: WebhookDelivery): SafeHtml {
  const { endpoint } = view;
  return html`<tr id="${d.id}">
    <td data-label="Event" class="cell-title"><code>${d.eventType}</code><span class="sub mono">${d.eventId}</span></td>
    <td data-label="Status">${DELIVERY_STATUS[d.status]}${d.error ? html`<span class="sub">${d.error}</span>` : ''}</td>
    <td data-label="Response">${d.responseStatus === null ? html`<span class="muted">—</span>` : d.responseStatus}</td>
    <td data-label="Duration">${d.durationMs === null ? html`<span class="muted">—</span>` : `${d.durationMs} ms`}</td>
    <td data-label="Attempts">${d.attempt}</td>
    <td data-label="Created">${time(d.createdAt)}</td>
    <td data-label="Last attempt">${time(d.lastAttemptAt)}</td>
    <td data-label="Next attempt">${time(d.nextAttemptAt)}</td>
    <td data-label="Actions">${
      endpoint.enabled
        ? html`<form method="post" action="${BASE}/${endpoint.id}/deliveries/${d.id}/resend">
      ${csrfField(view.user.csrfToken)}
      <button type="submit" class="button button-quiet">Send again<span class="visually-hidden"> ${d.eventType} ${d.eventId}</span></button>
    </form>`
        : ''
    }</td>
  </tr>`;
}

function deliveryTable(view: DeliveriesView): SafeHtml {
  if (!view.deliveries.length) {
    return html`<div class="empty"><p>No deliveries yet. They appear here when an event the endpoint subscribes to happens.</p></div>`;
  }
  return html`<table class="list">
  <thead><tr>
    <th scope="col">Event</th><th scope="col">Status</th><th scope="col">Response</th><th scope="col">Duration</th>
    <th scope="col">Attempts</th><th scope="col">Created</th><th scope="col">Last attempt</th><th scope="col">Next attempt</th>
    <th scope="col"><span class="visually-hidden">Actions</span></th>
  </tr></thead>
  <tbody>${view.deliveries.map((d) => deliveryRow(view, d))}</tbody>
</table>
${view.olderHref ? html`<p><a href="${view.olderHref}">Older deliveries →</a></p>` : ''}`;
}

export function deliveriesPage(view: DeliveriesView): SafeHtml {
  const { endpoint } = view;
  const disabledNote = endpoint.enabled
    ? ''
    : html`<div class="notice notice-error" role="alert">
  <p>${
    endpoint.disabledAt
      ? html`Disabled ${time(endpoint.disabledAt)} because deliveries kept failing: ${endpoint.disabledReason ?? ''}`
      : 'This endpoint is disabled: nothing is sent to it.'
  }</p>
  <form method="post" action="${BASE}/${endpoint.id}/enable" class="actions">
    ${csrfField(view.user.csrfToken)}
    <button type="submit" class="button button-primary">Enable again</button>
  </form>
</div>`;
  return page({
    title: `Deliveries to ${endpoint.url}`,
    user: view.user,
    section: 'webhooks',
    body: html`<p class="breadcrumb"><a href="${BASE}">← Webhooks</a></p>
<div class="page-head">
  <h1 class="url-text">Deliveries to ${endpoint.url}</h1>
  <p class="muted">${endpoint.description ?? ''} Events: ${endpoint.events.join(', ')}. Newest first.</p>
</div>
${view.message ?? ''}
${disabledNote}
${deliveryTable(view)}`,
  });
}

/** On reload or Back after adding an endpoint or rotating its secret: the secret was shown once. */
export function secretShownOnceNotice(url: string): SafeHtml {
  return notice(
    html`The signing secret for <span class="url-text">${url}</span> was shown once and is not shown again: if you did not copy it, rotate the secret to get a new one.`,
    'info',
  );
}
