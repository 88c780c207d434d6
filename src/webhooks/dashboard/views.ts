// Settings > Webhooks: endpoints (add with the secret shown once, enable/disable, rotate, delete) and each one's
// delivery log with "Send again". In the signed-in user's language; event types, URLs and headers stay as they are.

import type { SessionUser } from '../../accounts/sessions.js';
import {
  codeChoice,
  copyField,
  createCard,
  csrfField,
  errorFor,
  field,
  notice,
  time,
} from '../../platform/web/components.js';
import { html, type SafeHtml } from '../../platform/web/html.js';
import { page, settingsPage } from '../../platform/web/layout.js';
import { richText } from '../../platform/web/messages.js';
import type { FieldError } from '../../shared/errors.js';
import { type MessageKey, type Translator, translator } from '../../shared/i18n/index.js';
import type { WebhookDelivery } from '../deliveries.js';
import type { WebhookEndpoint } from '../endpoints.js';
import { EVENT_TYPES, type EventType } from '../events.js';

function labels(tr: Translator): Record<string, string> {
  return {
    url: tr.t('webhooks.url.label'),
    events: tr.t('webhooks.events.label'),
    description: tr.t('webhooks.description.label'),
  };
}

const EVENT_DESCRIPTIONS: Record<EventType, MessageKey> = {
  'lead.created': 'webhooks.event.leadCreated',
  'lead.status_changed': 'webhooks.event.leadStatusChanged',
  'lead.updated': 'webhooks.event.leadUpdated',
  'note.created': 'webhooks.event.noteCreated',
  'attachment.created': 'webhooks.event.attachmentCreated',
  'attachment.deleted': 'webhooks.event.attachmentDeleted',
  'customer.created': 'webhooks.event.customerCreated',
  'customer.updated': 'webhooks.event.customerUpdated',
  'customer.merged': 'webhooks.event.customerMerged',
  'customer.erased': 'webhooks.event.customerErased',
};

const BASE = '/dashboard/settings/webhooks';

const visuallyHidden = (inner: SafeHtml) => html`<span class="visually-hidden">${inner}</span>`;
const strong = (inner: SafeHtml) => html`<strong>${inner}</strong>`;
const code = (inner: SafeHtml) => html`<code>${inner}</code>`;

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

function endpointState(tr: Translator, endpoint: WebhookEndpoint): SafeHtml {
  if (endpoint.enabled)
    return html`<span class="badge badge-completed">${tr.t('webhooks.state.enabled')}</span>`;
  if (endpoint.disabledAt) {
    return html`<span class="badge badge-cancelled">${tr.t('webhooks.state.disabledAfterFailing')}</span>`;
  }
  return html`<span class="badge badge-cancelled">${tr.t('webhooks.state.disabled')}</span>`;
}

function secretPanel(tr: Translator, shown: ShownSecret): SafeHtml {
  const title = tr.t(shown.rotated ? 'webhooks.secret.newTitle' : 'webhooks.secret.title', {
    url: shown.endpoint.url,
  });
  return html`<section class="card card-highlight" aria-labelledby="secret-title">
  <h2 id="secret-title" class="url-text">${title}</h2>
  <p class="warning-text">${richText(tr, 'webhooks.secret.warning', { strong, code })}</p>
  ${copyField(tr, { id: 'new-secret', label: tr.t('webhooks.secret.label'), value: shown.secret })}
  ${shown.rotated ? html`<p class="hint">${tr.t('webhooks.secret.rotatedHint')}</p>` : ''}
</section>`;
}

function autoDisabledPanel(tr: Translator, endpoints: WebhookEndpoint[], csrfToken: string): SafeHtml | '' {
  const failed = endpoints.filter((e) => !e.enabled && e.disabledAt);
  if (!failed.length) return '';
  return html`<section class="notice notice-error" role="alert" aria-labelledby="failed-title">
  <h2 id="failed-title">${tr.t('webhooks.autoDisabled.title', { count: failed.length })}</h2>
  <p>${tr.t('webhooks.autoDisabled.explain', { count: failed.length })}</p>
  <ul>${failed.map(
    (e) => html`<li>
    <p class="url-text">${richText(tr, 'webhooks.autoDisabled.item', {
      url: e.url,
      at: time(e.disabledAt),
      reason: e.disabledReason ?? tr.t('webhooks.autoDisabled.defaultReason'),
      strong,
    })}</p>
    <form method="post" action="${BASE}/${e.id}/enable" class="actions">
      ${csrfField(csrfToken)}
      <button type="submit" class="button button-primary">${richText(tr, 'webhooks.enableAgain.for', { url: e.url, hidden: visuallyHidden })}</button>
      <a href="${BASE}/${e.id}">${tr.t('webhooks.seeDeliveries')}</a>
    </form>
  </li>`,
  )}</ul>
</section>`;
}

function createForm(tr: Translator, view: WebhooksView): SafeHtml {
  const { values, errors } = view;
  const eventsError = errorFor(errors, 'events');
  const label = labels(tr);
  const fields = html`${field({
    tr,
    name: 'url',
    label: label.url!,
    type: 'url',
    value: values.url,
    hint: richText(tr, 'webhooks.url.hint', { example: 'https://example.com/hooks/lead-intake', code }),
    error: errorFor(errors, 'url'),
    required: true,
    attributes: html`maxlength="2048" spellcheck="false"`,
  })}
    ${codeChoice(tr, {
      name: 'events',
      idPrefix: 'event',
      legend: label.events!,
      error: eventsError,
      codes: EVENT_TYPES,
      checked: values.events,
      hint: (type) => tr.t(EVENT_DESCRIPTIONS[type as EventType]),
    })}
    ${field({
      tr,
      name: 'description',
      label: label.description!,
      value: values.description,
      hint: tr.t('webhooks.description.hint'),
      error: errorFor(errors, 'description'),
      attributes: html`maxlength="500"`,
    })}`;
  return createCard(tr, {
    title: tr.t('webhooks.create.title'),
    errors,
    labels: label,
    action: BASE,
    csrfToken: view.user.csrfToken,
    fields,
    submit: tr.t('webhooks.create.submit'),
  });
}

function endpointActions(tr: Translator, endpoint: WebhookEndpoint, csrfToken: string): SafeHtml {
  const values = { url: endpoint.url, hidden: visuallyHidden };
  const toggle = endpoint.enabled
    ? html`<form method="post" action="${BASE}/${endpoint.id}/disable" data-confirm="${tr.t('webhooks.disable.confirm', { url: endpoint.url })}">
      ${csrfField(csrfToken)}
      <button type="submit" class="button button-quiet">${richText(tr, 'webhooks.disable', values)}</button>
    </form>`
    : html`<form method="post" action="${BASE}/${endpoint.id}/enable">
      ${csrfField(csrfToken)}
      <button type="submit" class="button button-quiet">${richText(tr, 'webhooks.enable', values)}</button>
    </form>`;
  return html`<div class="actions">
    <a class="button button-quiet" href="${BASE}/${endpoint.id}">${richText(tr, 'webhooks.deliveries', values)}</a>
    ${toggle}
    <form method="post" action="${BASE}/${endpoint.id}/rotate-secret" data-confirm="${tr.t('webhooks.rotate.confirm', { url: endpoint.url })}">
      ${csrfField(csrfToken)}
      <button type="submit" class="button button-quiet">${richText(tr, 'webhooks.rotate', values)}</button>
    </form>
    <a class="button button-danger-quiet" href="${BASE}/${endpoint.id}/delete">${richText(tr, 'webhooks.delete', values)}</a>
  </div>`;
}

function endpointTable(tr: Translator, view: WebhooksView): SafeHtml {
  if (!view.endpoints.length) return html`<div class="empty"><p>${tr.t('webhooks.none')}</p></div>`;
  const h = {
    url: tr.t('webhooks.url.label'),
    events: tr.t('webhooks.events.label'),
    created: tr.t('apiKeys.table.created'),
    state: tr.t('apiKeys.table.state'),
    actions: tr.t('users.table.actions'),
  };
  return html`<table class="list">
  <thead><tr>
    <th scope="col">${h.url}</th><th scope="col">${h.events}</th><th scope="col">${h.created}</th><th scope="col">${h.state}</th>
    <th scope="col"><span class="visually-hidden">${h.actions}</span></th>
  </tr></thead>
  <tbody>${view.endpoints.map(
    (e) => html`<tr${e.enabled ? '' : html` class="row-muted"`}>
    <td data-label="${h.url}" class="cell-title"><a href="${BASE}/${e.id}">${e.url}</a>${
      e.description ? html`<span class="sub">${e.description}</span>` : ''
    }</td>
    <td data-label="${h.events}">${e.events.map((t) => html`<code class="scope">${t}</code> `)}</td>
    <td data-label="${h.created}">${time(e.createdAt)}</td>
    <td data-label="${h.state}">${endpointState(tr, e)}</td>
    <td data-label="${h.actions}">${endpointActions(tr, e, view.user.csrfToken)}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

export function webhooksPage(view: WebhooksView): SafeHtml {
  const tr = translator(view.user.locale);
  return settingsPage(view, {
    title: tr.t('webhooks.title'),
    section: 'webhooks',
    intro: tr.t('webhooks.intro', { brand: view.user.brandName }),
    body: html`${autoDisabledPanel(tr, view.endpoints, view.user.csrfToken)}
${view.shown ? secretPanel(tr, view.shown) : ''}
${createForm(tr, view)}
<section aria-labelledby="endpoints-title">
  <h2 id="endpoints-title">${tr.t('webhooks.yourEndpoints')}</h2>
  ${endpointTable(tr, view)}
</section>`,
  });
}

export function deleteConfirmPage(user: SessionUser, endpoint: WebhookEndpoint): SafeHtml {
  const tr = translator(user.locale);
  return page({
    title: tr.t('webhooks.deleteConfirm.title', { url: endpoint.url }),
    user,
    section: 'webhooks',
    body: html`<p class="breadcrumb"><a href="${BASE}">← ${tr.t('webhooks.title')}</a></p>
<section class="card narrow" aria-labelledby="delete-title">
  <h1 id="delete-title" class="url-text">${tr.t('webhooks.deleteConfirm.heading', { url: endpoint.url })}</h1>
  <p>${tr.t('webhooks.deleteConfirm.explain', { events: endpoint.events.join(', ') })}</p>
  <form method="post" action="${BASE}/${endpoint.id}/delete" class="actions">
    ${csrfField(user.csrfToken)}
    <button type="submit" class="button button-danger">${tr.t('webhooks.deleteConfirm.submit')}</button>
    <a class="button button-quiet" href="${BASE}">${tr.t('apiKeys.revokeConfirm.keep')}</a>
  </form>
</section>`,
  });
}

const DELIVERY_STATUS: Record<WebhookDelivery['status'], { badge: string; key: MessageKey }> = {
  pending: { badge: 'badge-scheduled', key: 'webhooks.delivery.pending' },
  succeeded: { badge: 'badge-completed', key: 'webhooks.delivery.succeeded' },
  failed: { badge: 'badge-cancelled', key: 'webhooks.delivery.failed' },
};

export interface DeliveriesView {
  user: SessionUser;
  endpoint: WebhookEndpoint;
  deliveries: WebhookDelivery[];
  /** Link to the next (older) page, when there is one. */
  olderHref?: string | undefined;
  message?: SafeHtml | undefined;
}

function deliveryHeadings(tr: Translator) {
  return {
    event: tr.t('webhooks.deliveries.event'),
    status: tr.t('webhooks.deliveries.status'),
    response: tr.t('webhooks.deliveries.response'),
    duration: tr.t('webhooks.deliveries.duration'),
    attempts: tr.t('webhooks.deliveries.attempts'),
    created: tr.t('apiKeys.table.created'),
    lastAttempt: tr.t('webhooks.deliveries.lastAttempt'),
    nextAttempt: tr.t('webhooks.deliveries.nextAttempt'),
    actions: tr.t('users.table.actions'),
  };
}

function deliveryRow(tr: Translator, view: DeliveriesView, d: WebhookDelivery): SafeHtml {
  const { endpoint } = view;
  const h = deliveryHeadings(tr);
  const status = DELIVERY_STATUS[d.status];
  return html`<tr id="${d.id}">
    <td data-label="${h.event}" class="cell-title"><code>${d.eventType}</code><span class="sub mono">${d.eventId}</span></td>
    <td data-label="${h.status}"><span class="badge ${status.badge}">${tr.t(status.key)}</span>${d.error ? html`<span class="sub">${d.error}</span>` : ''}</td>
    <td data-label="${h.response}">${d.responseStatus === null ? html`<span class="muted">—</span>` : d.responseStatus}</td>
    <td data-label="${h.duration}">${d.durationMs === null ? html`<span class="muted">—</span>` : tr.t('webhooks.deliveries.ms', { ms: d.durationMs })}</td>
    <td data-label="${h.attempts}">${d.attempt}</td>
    <td data-label="${h.created}">${time(d.createdAt)}</td>
    <td data-label="${h.lastAttempt}">${time(d.lastAttemptAt)}</td>
    <td data-label="${h.nextAttempt}">${time(d.nextAttemptAt)}</td>
    <td data-label="${h.actions}">${
      endpoint.enabled
        ? html`<form method="post" action="${BASE}/${endpoint.id}/deliveries/${d.id}/resend">
      ${csrfField(view.user.csrfToken)}
      <button type="submit" class="button button-quiet">${richText(tr, 'webhooks.deliveries.resend', { event: `${d.eventType} ${d.eventId}`, hidden: visuallyHidden })}</button>
    </form>`
        : ''
    }</td>
  </tr>`;
}

function deliveryTable(tr: Translator, view: DeliveriesView): SafeHtml {
  if (!view.deliveries.length) {
    return html`<div class="empty"><p>${tr.t('webhooks.deliveries.none')}</p></div>`;
  }
  const h = deliveryHeadings(tr);
  return html`<table class="list">
  <thead><tr>
    <th scope="col">${h.event}</th><th scope="col">${h.status}</th><th scope="col">${h.response}</th><th scope="col">${h.duration}</th>
    <th scope="col">${h.attempts}</th><th scope="col">${h.created}</th><th scope="col">${h.lastAttempt}</th><th scope="col">${h.nextAttempt}</th>
    <th scope="col"><span class="visually-hidden">${h.actions}</span></th>
  </tr></thead>
  <tbody>${view.deliveries.map((d) => deliveryRow(tr, view, d))}</tbody>
</table>
${view.olderHref ? html`<p><a href="${view.olderHref}">${tr.t('webhooks.deliveries.older')}</a></p>` : ''}`;
}

export function deliveriesPage(view: DeliveriesView): SafeHtml {
  const { endpoint } = view;
  const tr = translator(view.user.locale);
  const disabledNote = endpoint.enabled
    ? ''
    : html`<div class="notice notice-error" role="alert">
  <p>${
    endpoint.disabledAt
      ? richText(tr, 'webhooks.deliveries.disabledAfterFailing', {
          at: time(endpoint.disabledAt),
          reason: endpoint.disabledReason ?? '',
        })
      : tr.t('webhooks.deliveries.disabled')
  }</p>
  <form method="post" action="${BASE}/${endpoint.id}/enable" class="actions">
    ${csrfField(view.user.csrfToken)}
    <button type="submit" class="button button-primary">${tr.t('webhooks.enableAgain')}</button>
  </form>
</div>`;
  const title = tr.t('webhooks.deliveries.title', { url: endpoint.url });
  return page({
    title,
    user: view.user,
    section: 'webhooks',
    body: html`<p class="breadcrumb"><a href="${BASE}">← ${tr.t('webhooks.title')}</a></p>
<div class="page-head">
  <h1 class="url-text">${title}</h1>
  <p class="muted">${endpoint.description ?? ''} ${tr.t('webhooks.deliveries.intro', { events: endpoint.events.join(', ') })}</p>
</div>
${view.message ?? ''}
${disabledNote}
${deliveryTable(tr, view)}`,
  });
}

/** On reload or Back after adding an endpoint or rotating its secret: the secret was shown once. */
export function secretShownOnceNotice(tr: Translator, url: string): SafeHtml {
  return notice(
    richText(tr, 'webhooks.secret.shownOnce', { url: html`<span class="url-text">${url}</span>` }),
    'info',
  );
}
