// Webhook endpoints: where a brand wants its events POSTed, which types, and the secret deliveries are signed with.
import { randomBytes } from 'node:crypto';
import type { Store } from '../platform/db/store.js';
import { DomainError, type FieldError, NotFoundError, ValidationError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { type Page, type SortOrder, toPage } from '../shared/paging.js';
import { hasUrlControl, URL_CONTROL_MESSAGE } from '../shared/text.js';
import { iso } from '../shared/time.js';
import { EVENT_TYPES, type EventType, isEventType } from './events.js';
import {
  countEndpoints,
  deleteEndpoint,
  type EndpointRow,
  failPendingDeliveries,
  insertEndpoint,
  rotateEndpointSecret,
  selectEndpoint,
  selectEndpointPage,
  selectEndpointSecret,
  updateEndpoint,
} from './queries.js';

export const SECRET_PREFIX = 'whsec_';
export const MAX_ENDPOINTS_PER_BRAND = 20;
const MAX_URL_LENGTH = 2048;
const MAX_DESCRIPTION_LENGTH = 500;
/** How long the secret replaced by a rotation still signs deliveries, so receivers can switch without a gap. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string | null;
  events: EventType[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** When deliveries stopped because the endpoint kept failing (or null). */
  disabledAt: string | null;
  disabledReason: string | null;
}

export interface WebhookEndpointWithSecret extends WebhookEndpoint {
  /** Shown on creation and rotation only. */
  secret: string;
}

/**
 * Checks a URL against the webhook policy (scheme, host, resolved addresses) and returns it normalised, or
 * throws an Error whose message says why it is refused.
 */
export type UrlChecker = (url: string) => Promise<string>;

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events.split(' ').filter(isEventType),
    enabled: row.enabled === 1,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    disabledAt: row.disabled_at === null ? null : iso(row.disabled_at),
    disabledReason: row.disabled_reason,
  };
}

/**
 * `whsec_` + standard base64 (with padding) of 32 random bytes: the form Standard Webhooks libraries decode. Secrets
 * issued before (`whsec_` + base64url) keep working for Lead-Intake-Signature; they get no webhook-signature until
 * rotated (see standardSigningKey in src/webhooks/signature.ts).
 */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export interface EndpointInput {
  url?: unknown;
  events?: unknown;
  description?: unknown;
  enabled?: unknown;
}

interface ParsedInput {
  url?: string;
  events?: EventType[];
  description?: string | null;
  enabled?: boolean;
}

async function parseInput(
  input: EndpointInput,
  checkUrl: UrlChecker,
  creating: boolean,
): Promise<ParsedInput> {
  const errors: FieldError[] = [];
  const out: ParsedInput = {};
  if (input.url === undefined) {
    if (creating) errors.push({ field: 'url', message: 'is required' });
  } else if (typeof input.url !== 'string' || !input.url.trim()) {
    errors.push({ field: 'url', message: 'must be a non-empty string' });
  } else if (hasUrlControl(input.url)) {
    // Checked before the trim, which would take a trailing CR or LF away unseen.
    errors.push({ field: 'url', message: URL_CONTROL_MESSAGE });
  } else if (input.url.trim().length > MAX_URL_LENGTH) {
    errors.push({ field: 'url', message: `must be at most ${MAX_URL_LENGTH} characters` });
  } else {
    try {
      out.url = await checkUrl(input.url.trim());
    } catch (error) {
      errors.push({ field: 'url', message: error instanceof Error ? error.message : 'is not allowed' });
    }
  }
  if (input.events !== undefined) {
    const list = input.events;
    if (!Array.isArray(list) || !list.length) {
      errors.push({ field: 'events', message: `must be a non-empty array of ${EVENT_TYPES.join(', ')}` });
    } else {
      const bad = list.filter((t) => !isEventType(t));
      if (bad.length) {
        errors.push({
          field: 'events',
          message: `unknown event type ${bad.map((b) => JSON.stringify(b)).join(', ')}; known: ${EVENT_TYPES.join(', ')}`,
        });
      } else {
        out.events = EVENT_TYPES.filter((t) => list.includes(t));
      }
    }
  } else if (creating) {
    out.events = [...EVENT_TYPES];
  }
  if (input.description !== undefined) {
    if (input.description === null) out.description = null;
    else if (typeof input.description !== 'string') {
      errors.push({ field: 'description', message: 'must be a string or null' });
    } else if (input.description.trim().length > MAX_DESCRIPTION_LENGTH) {
      errors.push({ field: 'description', message: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` });
    } else out.description = input.description.trim() || null;
  }
  if (input.enabled !== undefined) {
    if (typeof input.enabled !== 'boolean')
      errors.push({ field: 'enabled', message: 'must be true or false' });
    else out.enabled = input.enabled;
  }
  if (errors.length) throw new ValidationError(errors);
  return out;
}

export async function createWebhookEndpoint(
  store: Store,
  brandId: string,
  input: EndpointInput,
  checkUrl: UrlChecker,
  now: number = Date.now(),
): Promise<WebhookEndpointWithSecret> {
  // The URL check resolves DNS: done before the write, which holds the connection while it runs.
  const parsed = await parseInput(input, checkUrl, true);
  return store.write(async (tx) => {
    if ((await countEndpoints(tx, brandId)) >= MAX_ENDPOINTS_PER_BRAND) {
      throw new ValidationError([
        {
          field: '(body)',
          message: `a brand can have at most ${MAX_ENDPOINTS_PER_BRAND} webhook endpoints; delete one first`,
        },
      ]);
    }
    const row = {
      id: newId('webhookEndpoint', now),
      brand_id: brandId,
      url: parsed.url!,
      description: parsed.description ?? null,
      events: parsed.events!.join(' '),
      secret: newSecret(),
      previous_secret: null,
      previous_secret_expires_at: null,
      enabled: 1,
      failing_since: null,
      last_success_at: null,
      disabled_at: null,
      disabled_reason: null,
      created_at: now,
      updated_at: now,
    };
    await insertEndpoint(tx, row);
    return { ...toEndpoint(row), secret: row.secret };
  });
}

export async function listWebhookEndpoints(
  store: Store,
  brandId: string,
  query: { limit: number; order: SortOrder; cursor?: string },
): Promise<Page<WebhookEndpoint>> {
  const rows = await selectEndpointPage(store, brandId, query);
  return toPage(rows, query.limit, query.order, (r) => ({ time: r.created_at, id: r.id }), toEndpoint);
}

export async function getWebhookEndpoint(
  store: Store,
  brandId: string,
  id: string,
): Promise<WebhookEndpoint> {
  const row = await selectEndpoint(store, brandId, id);
  if (!row) throw new NotFoundError(`No webhook endpoint with id ${id}`);
  return toEndpoint(row);
}

/**
 * Changes url, events, description or enabled. Enabling clears a previous automatic disable; disabling ends the
 * endpoint's pending deliveries; a new URL starts with a clean failure record.
 */
export async function updateWebhookEndpoint(
  store: Store,
  brandId: string,
  id: string,
  input: EndpointInput,
  checkUrl: UrlChecker,
  now: number = Date.now(),
): Promise<WebhookEndpoint> {
  const current = await getWebhookEndpoint(store, brandId, id);
  const parsed = await parseInput(input, checkUrl, false);
  await store.write(async (tx) => {
    await updateEndpoint(tx, brandId, id, {
      updated_at: now,
      ...(parsed.url !== undefined ? { url: parsed.url, failing_since: null } : {}),
      ...(parsed.events !== undefined ? { events: parsed.events.join(' ') } : {}),
      ...(parsed.description !== undefined ? { description: parsed.description } : {}),
      ...(parsed.enabled === true
        ? { enabled: 1, disabled_at: null, disabled_reason: null, failing_since: null }
        : {}),
      ...(parsed.enabled === false ? { enabled: 0 } : {}),
    });
    if (parsed.enabled === false && current.enabled) {
      await failPendingDeliveries(tx, id, 'endpoint disabled', now);
    }
  });
  return getWebhookEndpoint(store, brandId, id);
}

export async function deleteWebhookEndpoint(store: Store, brandId: string, id: string): Promise<void> {
  const deleted = await store.write((tx) => deleteEndpoint(tx, brandId, id));
  if (!deleted) throw new NotFoundError(`No webhook endpoint with id ${id}`);
}

/**
 * Issues a new secret. Deliveries are signed with the new one and, for 24 hours, also with the one it replaces
 * (two v1 values), so a receiver can switch its configuration without rejecting deliveries in between.
 */
export async function rotateWebhookSecret(
  store: Store,
  brandId: string,
  id: string,
  now: number = Date.now(),
): Promise<{ secret: string; previousSecretExpiresAt: string }> {
  return store.write(async (tx) => {
    const current = await selectEndpointSecret(tx, brandId, id);
    if (current === undefined) throw new NotFoundError(`No webhook endpoint with id ${id}`);
    const secret = newSecret();
    const expiresAt = now + PREVIOUS_SECRET_TTL_MS;
    // Two rotations at once: only one new secret can be the current one; the other caller must not get a dud.
    if (!(await rotateEndpointSecret(tx, id, { current, next: secret, expiresAt }, now))) {
      throw new DomainError('conflict', 'The secret was rotated by another request at the same time; retry.');
    }
    return { secret, previousSecretExpiresAt: iso(expiresAt) };
  });
}
