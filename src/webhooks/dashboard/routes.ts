// Settings > Webhooks (admins only): the same domain functions as /v1/webhook-endpoints, for the signed-in user's brand.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { flash, takeFlashed } from '../../accounts/dashboard/flash.js';
import { adminPage, hidden, userOf } from '../../accounts/dashboard/session.js';
import type { SessionUser } from '../../accounts/sessions.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { doneNotice, notice } from '../../platform/web/components.js';
import { errorPage } from '../../platform/web/error-pages.js';
import { list, pathParam, seeOther, sendPage, text, withQuery } from '../../platform/web/http.js';
import { DomainError, type FieldError, type FieldErrorText, ValidationError } from '../../shared/errors.js';
import { type MessageKey, translator } from '../../shared/i18n/index.js';
import { isCursor, MAX_LIMIT } from '../../shared/paging.js';
import { listDeliveries, resendDelivery } from '../deliveries.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  MAX_ENDPOINTS_PER_BRAND,
  rotateWebhookSecret,
  type UrlChecker,
  updateWebhookEndpoint,
} from '../endpoints.js';
import { EVENT_TYPES } from '../events.js';
import { checkWebhookUrl } from '../url-guard.js';
import {
  deleteConfirmPage,
  deliveriesPage,
  secretShownOnceNotice,
  type WebhooksView,
  webhooksPage,
} from './views.js';

const BASE = '/dashboard/settings/webhooks';
const DELIVERIES_PER_PAGE = 50;

// Every event type ticked, as the API's default when none are named.
const EMPTY = { url: '', events: [...EVENT_TYPES] as string[], description: '' };

const MESSAGES: Record<string, MessageKey> = {
  enabled: 'webhooks.notice.enabled',
  disabled: 'webhooks.notice.disabled',
  deleted: 'webhooks.notice.deleted',
};

const idOf = (request: FastifyRequest) => pathParam(request, 'id');

/**
 * What the URL check's refusals (English, for the API) say to people: by the start of the message, the catalog's
 * sentence. Refusals naming a host or an address lose the name, which the form's value shows anyway.
 */
const URL_REFUSALS: [prefix: string, key: MessageKey][] = [
  ['is required', 'webhooks.url.required'],
  ['must be a non-empty string', 'webhooks.url.required'],
  ['must be an absolute URL', 'webhooks.url.absolute'],
  ['must use https', 'webhooks.url.https'],
  ['may use http only', 'webhooks.url.httpLocalOnly'],
  ['must not contain a user name', 'webhooks.url.credentials'],
  ['must not contain a #fragment', 'webhooks.url.fragment'],
  ['host ', 'webhooks.url.unreachable'],
  ['resolves to ', 'webhooks.url.notPublic'],
  ['must not contain control characters', 'validation.controlCharacters'],
];

function textOf(error: FieldError): FieldErrorText | undefined {
  if (error.text) return error.text;
  if (error.field === 'url') {
    if (error.message.startsWith('must be at most')) {
      return { key: 'validation.tooLong', values: { max: 2048 } };
    }
    const known = URL_REFUSALS.find(([prefix]) => error.message.startsWith(prefix));
    return known ? { key: known[1] } : undefined;
  }
  if (error.field === 'events') return { key: 'webhooks.events.unknown' };
  if (error.field === 'description' && error.message.startsWith('must be at most')) {
    return { key: 'validation.tooLong', values: { max: 500 } };
  }
  return undefined;
}

/** The form's wording for what the API reports about its JSON body, and each error's text for people. */
function formErrors(errors: readonly FieldError[], events: string[]): FieldError[] {
  return errors.map((e): FieldError => {
    if (e.field === 'events' && !events.length) {
      return {
        field: 'events',
        message: 'at least one is required',
        text: { key: 'webhooks.events.required' },
      };
    }
    const text = textOf(e);
    return text ? { ...e, text } : e;
  });
}

function urlChecker(deps: RouteDeps): UrlChecker {
  const { allowHttp, allowPrivate } = deps.config.webhooks;
  return (url) => checkWebhookUrl(url, { allowHttp, allowPrivate });
}

async function renderList(
  deps: RouteDeps,
  reply: FastifyReply,
  user: SessionUser,
  extra: Partial<WebhooksView> = {},
  status = 200,
) {
  const page = await listWebhookEndpoints(deps.database, user.brandId, { limit: MAX_LIMIT, order: 'desc' });
  const view: WebhooksView = { user, endpoints: page.data, values: EMPTY, errors: [], ...extra };
  return sendPage(reply, webhooksPage(view), status);
}

async function showEndpoints(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const tr = translator(user.locale);
  let message = doneNotice(request, tr, MESSAGES);
  let shown: WebhooksView['shown'];
  // After adding an endpoint or rotating its secret (post, redirect, get): the secret once, then only a note.
  const createdId = text(request.query, 'created');
  const rotatedId = text(request.query, 'rotated');
  const id = createdId || rotatedId;
  if (id) {
    const page = await listWebhookEndpoints(deps.database, user.brandId, { limit: MAX_LIMIT, order: 'desc' });
    const endpoint = page.data.find((e) => e.id === id);
    const secret = endpoint
      ? await takeFlashed(deps.database, request, `webhook-secret:${endpoint.id}`)
      : null;
    if (endpoint && secret) shown = { endpoint, secret, rotated: !createdId };
    else if (endpoint) message = secretShownOnceNotice(tr, endpoint.url);
  }
  return renderList(deps, reply, user, { message, shown });
}

async function addEndpoint(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const body = request.body;
  const values = {
    url: text(body, 'url'),
    events: list(body, 'events'),
    description: text(body, 'description'),
  };
  try {
    const created = await createWebhookEndpoint(
      deps.database,
      user.brandId,
      { url: values.url, events: values.events, description: values.description },
      urlChecker(deps),
    );
    request.log.info(
      { endpointId: created.id, userId: user.userId },
      'webhook endpoint created in the dashboard',
    );
    // Shown once by the page this redirects to, like a new API key: reloading it or going Back adds nothing.
    await flash(deps.database, request, `webhook-secret:${created.id}`, created.secret);
    return seeOther(reply, `${BASE}?created=${created.id}`);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const limit = error.errors.find((e) => e.field === '(body)');
    const message = limit
      ? notice(
          translator(user.locale).t('webhooks.notice.tooMany', { max: MAX_ENDPOINTS_PER_BRAND }),
          'error',
        )
      : undefined;
    const errors = formErrors(
      error.errors.filter((e) => e.field !== '(body)'),
      values.events,
    );
    return renderList(deps, reply, user, { values, errors, message }, 422);
  }
}

/** "Enable" and "Disable": deliveries resume, or stop (pending ones are dropped). */
async function setEnabled(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply, enabled: boolean) {
  const user = userOf(request);
  await updateWebhookEndpoint(deps.database, user.brandId, idOf(request), { enabled }, urlChecker(deps));
  const done = enabled ? 'enabled' : 'disabled';
  request.log.info(
    { endpointId: idOf(request), userId: user.userId },
    `webhook endpoint ${done} in the dashboard`,
  );
  return seeOther(reply, `${BASE}?done=${done}`);
}

async function rotateSecret(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const endpoint = await getWebhookEndpoint(deps.database, user.brandId, idOf(request));
  const rotated = await rotateWebhookSecret(deps.database, user.brandId, endpoint.id);
  request.log.info(
    { endpointId: endpoint.id, userId: user.userId },
    'webhook secret rotated in the dashboard',
  );
  await flash(deps.database, request, `webhook-secret:${endpoint.id}`, rotated.secret);
  return seeOther(reply, `${BASE}?rotated=${endpoint.id}`);
}

/** An endpoint's delivery log, newest first. */
async function showDeliveries(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const endpoint = await getWebhookEndpoint(deps.database, user.brandId, idOf(request));
  const cursor = text(request.query, 'cursor');
  const page = await listDeliveries(deps.database, user.brandId, endpoint.id, {
    limit: DELIVERIES_PER_PAGE,
    order: 'desc',
    ...(isCursor(cursor) ? { cursor } : {}),
  });
  const resent = text(request.query, 'resent');
  const message = page.data.some((d) => d.id === resent)
    ? notice(translator(user.locale).t('webhooks.notice.resent'))
    : undefined;
  const olderHref = page.nextCursor
    ? withQuery(`${BASE}/${endpoint.id}`, { cursor: page.nextCursor })
    : undefined;
  return sendPage(reply, deliveriesPage({ user, endpoint, deliveries: page.data, olderHref, message }));
}

async function resend(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const id = pathParam(request, 'id');
  const deliveryId = pathParam(request, 'deliveryId');
  try {
    const delivery = await resendDelivery(deps.database, user.brandId, id, deliveryId);
    request.log.info(
      { endpointId: id, deliveryId: delivery.id, userId: user.userId },
      'webhook delivery resent',
    );
    return seeOther(reply, `${BASE}/${id}?resent=${delivery.id}`);
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'conflict')) throw error;
    const page = errorPage(
      { title: 'webhooks.error.disabled.title', message: 'webhooks.error.disabled.message' },
      user,
      user.locale,
    );
    return sendPage(reply, page, 409);
  }
}

export default async function webhookRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const admin = { schema: hidden, config: adminPage };
  app.get('/settings/webhooks', admin, (request, reply) => showEndpoints(deps, request, reply));
  app.post('/settings/webhooks', admin, (request, reply) => addEndpoint(deps, request, reply));
  app.post('/settings/webhooks/:id/enable', admin, (request, reply) =>
    setEnabled(deps, request, reply, true),
  );
  app.post('/settings/webhooks/:id/disable', admin, (request, reply) =>
    setEnabled(deps, request, reply, false),
  );
  app.post('/settings/webhooks/:id/rotate-secret', admin, (request, reply) =>
    rotateSecret(deps, request, reply),
  );
  app.get('/settings/webhooks/:id/delete', admin, async (request, reply) => {
    const user = userOf(request);
    const endpoint = await getWebhookEndpoint(deps.database, user.brandId, idOf(request));
    return sendPage(reply, deleteConfirmPage(user, endpoint));
  });
  app.post('/settings/webhooks/:id/delete', admin, async (request, reply) => {
    const user = userOf(request);
    await deleteWebhookEndpoint(deps.database, user.brandId, idOf(request));
    request.log.info(
      { endpointId: idOf(request), userId: user.userId },
      'webhook endpoint deleted in the dashboard',
    );
    return seeOther(reply, `${BASE}?done=deleted`);
  });
  app.get('/settings/webhooks/:id', admin, (request, reply) => showDeliveries(deps, request, reply));
  app.post('/settings/webhooks/:id/deliveries/:deliveryId/resend', admin, (request, reply) =>
    resend(deps, request, reply),
  );
}
