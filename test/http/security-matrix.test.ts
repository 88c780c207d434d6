// The security matrix every registered API route goes through: authentication, scopes, isolation, key cache.
import { randomBytes } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/accounts/api-keys.js';
import { raw } from '../api.js';
import {
  ALL_SCOPES,
  createTestContext,
  dialects,
  TEST_WEBHOOKS,
  type TestContext,
  validLead,
} from '../helpers.js';
import { multipart, TINY_PNG } from '../multipart.js';
import { type Receiver, startReceiver } from '../receiver.js';
import { forEachRegisteredRoute } from '../routes.js';

/** Ids the routes need: brand A's (the main brand) and brand B's (the other brand). */
interface Fixtures {
  leadId: string;
  workItemId: string;
  addressId: string;
  /** A lead only the PATCH route touches, so state changes do not disturb the other routes. */
  patchLeadId: string;
  otherLeadId: string;
  otherWorkItemId: string;
  otherAddressId: string;
  customerId: string;
  otherCustomerId: string;
  /** Where brand A's webhook endpoints point: a local receiver, so deliveries succeed and are not retried. */
  hookUrl: string;
  /** Brand A's webhook endpoint, one delivery queued to it and that delivery's event. */
  endpointId: string;
  deliveryId: string;
  deliveryEventId: string;
  /** An endpoint only the DELETE route touches. */
  deleteEndpointId: string;
  otherEndpointId: string;
  eventId: string;
  otherEventId: string;
  formId: string;
  deleteFormId: string;
  /** A customer of its own, which only the erase route touches. */
  eraseCustomerId: string;
  /** Customers only the merge route touches: the one kept and the one merged into it. */
  mergeIntoId: string;
  mergeFromId: string;
  /** A note on brand A's lead. */
  noteId: string;
  /** A photo of brand A's lead, and one only the DELETE route touches. */
  attachmentId: string;
  deleteAttachmentId: string;
  otherFormId: string;
}

interface RouteCase {
  /** "METHOD /path/{param}", as the OpenAPI document names the route. */
  name: string;
  scope: Scope;
  /** For a route that addresses one record: brand A's id in the URL, which another brand must get a 404 for. */
  recordId?: (fx: Fixtures) => string;
  success: number;
  request(fx: Fixtures): InjectOptions;
  /** Checks the body of an allowed request; absent when the success has no body (204). */
  expectBody?(body: Record<string, unknown>, fx: Fixtures): void;
  /** Instead of expectBody, for a success that is not JSON (a CSV export): its media type and text. */
  expectText?: { type: RegExp; check(text: string, fx: Fixtures): void };
}

const json = { 'content-type': 'application/json' };

const expectList = (body: Record<string, unknown>) => {
  expect(Array.isArray(body.data)).toBe(true);
  expect(body.limit).toBe(50);
};

// One row per scoped route: 'the security matrix' test fails when the app registers a scoped route without one.
const ROUTES: RouteCase[] = [
  {
    name: 'POST /v1/leads',
    scope: 'leads:write',
    success: 201,
    request: () => ({ method: 'POST', url: '/v1/leads', headers: json, payload: validLead() }),
    expectBody: (body) => expect(body.id).toMatch(/^wrk_[0-9a-z]{26}$/),
  },
  {
    name: 'GET /v1/leads',
    scope: 'leads:read',
    success: 200,
    request: () => ({ method: 'GET', url: '/v1/leads' }),
    expectBody: expectList,
  },
  {
    name: 'GET /v1/leads/{id}',
    scope: 'leads:read',
    recordId: (fx) => fx.leadId,
    success: 200,
    request: (fx) => ({ method: 'GET', url: `/v1/leads/${fx.leadId}` }),
    expectBody: (body, fx) => expect(body.id).toBe(fx.leadId),
  },
  {
    name: 'PATCH /v1/leads/{id}',
    scope: 'full',
    recordId: (fx) => fx.patchLeadId,
    success: 200,
    request: (fx) => ({
      method: 'PATCH',
      url: `/v1/leads/${fx.patchLeadId}`,
      headers: json,
      payload: { status: 'quoted' },
    }),
    expectBody: (body, fx) => {
      expect(body.id).toBe(fx.patchLeadId);
      expect(body.status).toBe('quoted');
    },
  },
  {
    name: 'GET /v1/leads/{id}/notes',
    scope: 'full',
    recordId: (fx) => fx.leadId,
    success: 200,
    request: (fx) => ({ method: 'GET', url: `/v1/leads/${fx.leadId}/notes` }),
    expectBody: expectList,
  },
  {
    name: 'POST /v1/leads/{id}/notes',
    scope: 'full',
    recordId: (fx) => fx.leadId,
    success: 201,
    request: (fx) => ({
      method: 'POST',
      url: `/v1/leads/${fx.leadId}/notes`,
      headers: json,
      payload: { text: 'Added by the matrix' },
    }),
    expectBody: (body) => expect(body.id).toMatch(/^not_[0-9a-z]{26}$/),
  },
  {
    name: 'POST /v1/leads/{id}/attachments',
    scope: 'leads:write',
    recordId: (fx) => fx.leadId,
    success: 201,
    request: (fx) => {
      const body = multipart([{ filename: 'dot.png', type: 'image/png', data: TINY_PNG }]);
      return { method: 'POST', url: `/v1/leads/${fx.leadId}/attachments`, ...body };
    },
    expectBody: (body) => expect((body.data as { id: string }[])[0]?.id).toMatch(/^att_[0-9a-z]{26}$/),
  },
  {
    name: 'GET /v1/leads/{id}/attachments',
    scope: 'leads:read',
    recordId: (fx) => fx.leadId,
    success: 200,
    request: (fx) => ({ method: 'GET', url: `/v1/leads/${fx.leadId}/attachments` }),
    expectBody: expectList,
  },
  {
    name: 'GET /v1/attachments/{id}',
    scope: 'leads:read',
    recordId: (fx) => fx.attachmentId,
    success: 200,
    request: (fx) => ({ method: 'GET', url: `/v1/attachments/${fx.attachmentId}` }),
    expectBody: (body, fx) => expect(body.id).toBe(fx.attachmentId),
  },
  {
    name: 'GET /v1/attachments/{id}/content',
    scope: 'leads:read',
    recordId: (fx) => fx.attachmentId,
    success: 200,
    request: (fx) => ({ method: 'GET', url: `/v1/attachments/${fx.attachmentId}/content` }),
    expectText: { type: /^image\/png$/, check: (text) => expect(text.length).toBeGreaterThan(0) },
  },
  {
    name: 'DELETE /v1/attachments/{id}',
    scope: 'full',
    recordId: (fx) => fx.deleteAttachmentId,
    success: 204,
    request: (fx) => ({ method: 'DELETE', url: `/v1/attachments/${fx.deleteAttachmentId}` }),
  },
  {
    name: 'GET /v1/leads/{id}/notes/{noteId}',
    scope: 'full',
    recordId: (fx) => fx.noteId,
    success: 200,
    request: (fx) => ({ method: 'GET', url: `/v1/leads/${fx.leadId}/notes/${fx.noteId}` }),
    expectBody: (body, fx) => expect(body.id).toBe(fx.noteId),
  },
  {
    name: 'GET /v1/work-items',
    scope: 'work-items:read',
    success: 200,
    request: () => ({ method: 'GET', url: '/v1/work-items' }),
    expectBody: expectList,
  },
  {
    name: 'GET /v1/work-items/{id}',
    scope: 'work-items:read',
    recordId: (fx) => fx.workItemId,
    success: 200,
    request: (fx) => ({ method: 'GET', url: `/v1/work-items/${fx.workItemId}` }),
    expectBody: (body, fx) => expect(body.id).toBe(fx.workItemId),
  },
  {
    name: 'GET /v1/exports/leads.csv',
    scope: 'leads:read',
    success: 200,
    request: () => ({ method: 'GET', url: '/v1/exports/leads.csv' }),
    expectText: {
      type: /^text\/csv/,
      check: (text, fx) => {
        expect(text).toContain(fx.leadId);
        expect(text).not.toContain(fx.otherLeadId);
      },
    },
  },
  {
    name: 'GET /v1/exports/work-items.csv',
    scope: 'work-items:read',
    success: 200,
    request: () => ({ method: 'GET', url: '/v1/exports/work-items.csv' }),
    expectText: {
      type: /^text\/csv/,
      check: (text, fx) => {
        expect(text).toContain(fx.workItemId);
        expect(text).not.toContain(fx.otherWorkItemId);
      },
    },
  },
  {
    name: 'GET /v1/customers',
    scope: 'customers:read',
    success: 200,
    request: () => ({ method: 'GET', url: '/v1/customers' }),
    expectBody: expectList,
  },
  {
    name: 'GET /v1/customers/{id}',
    scope: 'customers:read',
    recordId: (fx) => fx.customerId,
    success: 200,
    request: (fx) => ({ method: 'GET', url: `/v1/customers/${fx.customerId}` }),
    expectBody: (body, fx) => expect(body.id).toBe(fx.customerId),
  },
  {
    name: 'GET /v1/customers/{id}/export',
    scope: 'full',
    recordId: (fx) => fx.customerId,
    success: 200,
    request: (fx) => ({ method: 'GET', url: `/v1/customers/${fx.customerId}/export` }),
    expectBody: (body, fx) => {
      expect((body.customer as { id: string }).id).toBe(fx.customerId);
      expect(JSON.stringify(body)).not.toContain(fx.otherCustomerId);
    },
  },
  {
    name: 'PATCH /v1/customers/{id}',
    scope: 'full',
    recordId: (fx) => fx.customerId,
    success: 200,
    request: (fx) => ({
      method: 'PATCH',
      url: `/v1/customers/${fx.customerId}`,
      headers: json,
      payload: { companyName: 'Matrix Company' },
    }),
    expectBody: (body, fx) => {
      expect(body.id).toBe(fx.customerId);
      expect(body.companyName).toBe('Matrix Company');
    },
  },
  {
    name: 'POST /v1/customers/{id}/merge',
    scope: 'full',
    recordId: (fx) => fx.mergeIntoId,
    success: 200,
    request: (fx) => ({
      method: 'POST',
      url: `/v1/customers/${fx.mergeIntoId}/merge`,
      headers: json,
      payload: { from: fx.mergeFromId },
    }),
    expectBody: (body, fx) => {
      expect(body.id).toBe(fx.mergeIntoId);
      expect(body.leadCount).toBe(2);
    },
  },
  {
    name: 'GET /v1/addresses',
    scope: 'full',
    success: 200,
    request: () => ({ method: 'GET', url: '/v1/addresses' }),
    expectBody: expectList,
  },
  {
    name: 'GET /address',
    scope: 'full',
    success: 200,
    request: () => ({ method: 'GET', url: '/address' }),
    expectBody: expectList,
  },
  {
    name: 'GET /v1/events',
    scope: 'full',
    success: 200,
    request: () => ({ method: 'GET', url: '/v1/events' }),
    expectBody: expectList,
  },
  {
    name: 'POST /v1/webhook-endpoints',
    scope: 'full',
    success: 201,
    request: (fx) => ({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: json,
      payload: { url: fx.hookUrl },
    }),
    expectBody: (body) => {
      expect(body.id).toMatch(/^whk_[0-9a-z]{26}$/);
      expect(body.secret).toMatch(/^whsec_/);
    },
  },
  {
    name: 'GET /v1/webhook-endpoints',
    scope: 'full',
    success: 200,
    request: () => ({ method: 'GET', url: '/v1/webhook-endpoints' }),
    expectBody: expectList,
  },
  {
    name: 'GET /v1/webhook-endpoints/{id}',
    scope: 'full',
    recordId: (fx) => fx.endpointId,
    success: 200,
    request: (fx) => ({ method: 'GET', url: `/v1/webhook-endpoints/${fx.endpointId}` }),
    expectBody: (body, fx) => expect(body.id).toBe(fx.endpointId),
  },
  {
    name: 'PATCH /v1/webhook-endpoints/{id}',
    scope: 'full',
    recordId: (fx) => fx.endpointId,
    success: 200,
    request: (fx) => ({
      method: 'PATCH',
      url: `/v1/webhook-endpoints/${fx.endpointId}`,
      headers: json,
      payload: { description: 'changed by the matrix' },
    }),
    expectBody: (body, fx) => {
      expect(body.id).toBe(fx.endpointId);
      expect(body.description).toBe('changed by the matrix');
    },
  },
  {
    name: 'DELETE /v1/webhook-endpoints/{id}',
    scope: 'full',
    recordId: (fx) => fx.deleteEndpointId,
    success: 204,
    request: (fx) => ({ method: 'DELETE', url: `/v1/webhook-endpoints/${fx.deleteEndpointId}` }),
  },
  {
    name: 'POST /v1/webhook-endpoints/{id}/rotate-secret',
    scope: 'full',
    recordId: (fx) => fx.endpointId,
    success: 200,
    request: (fx) => ({ method: 'POST', url: `/v1/webhook-endpoints/${fx.endpointId}/rotate-secret` }),
    expectBody: (body) => expect(body.secret).toMatch(/^whsec_/),
  },
  {
    name: 'GET /v1/webhook-endpoints/{id}/deliveries',
    scope: 'full',
    recordId: (fx) => fx.endpointId,
    success: 200,
    request: (fx) => ({ method: 'GET', url: `/v1/webhook-endpoints/${fx.endpointId}/deliveries` }),
    expectBody: (body, fx) => {
      expectList(body);
      expect((body.data as { id: string }[]).map((d) => d.id)).toContain(fx.deliveryId);
    },
  },
  {
    name: 'POST /v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend',
    scope: 'full',
    recordId: (fx) => fx.endpointId,
    success: 202,
    request: (fx) => ({
      method: 'POST',
      url: `/v1/webhook-endpoints/${fx.endpointId}/deliveries/${fx.deliveryId}/resend`,
    }),
    expectBody: (body, fx) => {
      expect(body.id).toMatch(/^whd_[0-9a-z]{26}$/);
      expect(body.id).not.toBe(fx.deliveryId);
      expect(body.eventId).toBe(fx.deliveryEventId);
    },
  },
  {
    name: 'POST /v1/forms',
    scope: 'full',
    success: 201,
    request: () => ({
      method: 'POST',
      url: '/v1/forms',
      headers: json,
      payload: { name: 'Matrix form', allowedOrigins: ['https://www.example.nl'] },
    }),
    expectBody: (body) => expect(body.id).toMatch(/^frm_[0-9a-z]{26}$/),
  },
  {
    name: 'GET /v1/forms',
    scope: 'full',
    success: 200,
    request: () => ({ method: 'GET', url: '/v1/forms' }),
    expectBody: expectList,
  },
  {
    name: 'GET /v1/forms/{id}',
    scope: 'full',
    recordId: (fx) => fx.formId,
    success: 200,
    request: (fx) => ({ method: 'GET', url: `/v1/forms/${fx.formId}` }),
    expectBody: (body, fx) => expect(body.id).toBe(fx.formId),
  },
  {
    name: 'PATCH /v1/forms/{id}',
    scope: 'full',
    recordId: (fx) => fx.formId,
    success: 200,
    request: (fx) => ({
      method: 'PATCH',
      url: `/v1/forms/${fx.formId}`,
      headers: json,
      payload: { name: 'changed by the matrix' },
    }),
    expectBody: (body) => expect(body.name).toBe('changed by the matrix'),
  },
  {
    name: 'DELETE /v1/forms/{id}',
    scope: 'full',
    recordId: (fx) => fx.deleteFormId,
    success: 204,
    request: (fx) => ({ method: 'DELETE', url: `/v1/forms/${fx.deleteFormId}` }),
  },
  {
    name: 'POST /v1/customers/{id}/erase',
    scope: 'full',
    recordId: (fx) => fx.eraseCustomerId,
    success: 200,
    request: (fx) => ({
      method: 'POST',
      url: `/v1/customers/${fx.eraseCustomerId}/erase`,
      headers: json,
      payload: {},
    }),
    expectBody: (body, fx) => expect(body.id).toBe(fx.eraseCustomerId),
  },
];

/** List routes and how to find brand A's and brand B's record in them. */
const LISTS = [
  { url: '/v1/leads', mine: (fx: Fixtures) => fx.leadId, theirs: (fx: Fixtures) => fx.otherLeadId },
  {
    url: '/v1/work-items',
    mine: (fx: Fixtures) => fx.workItemId,
    theirs: (fx: Fixtures) => fx.otherWorkItemId,
  },
  {
    url: '/v1/addresses',
    mine: (fx: Fixtures) => fx.addressId,
    theirs: (fx: Fixtures) => fx.otherAddressId,
  },
  { url: '/address', mine: (fx: Fixtures) => fx.addressId, theirs: (fx: Fixtures) => fx.otherAddressId },
  { url: '/v1/events', mine: (fx: Fixtures) => fx.eventId, theirs: (fx: Fixtures) => fx.otherEventId },
  {
    url: '/v1/customers',
    mine: (fx: Fixtures) => fx.customerId,
    theirs: (fx: Fixtures) => fx.otherCustomerId,
  },
  {
    url: '/v1/webhook-endpoints',
    mine: (fx: Fixtures) => fx.endpointId,
    theirs: (fx: Fixtures) => fx.otherEndpointId,
  },
  { url: '/v1/forms', mine: (fx: Fixtures) => fx.formId, theirs: (fx: Fixtures) => fx.otherFormId },
];

/**
 * Every route the app registers with a scope, as "METHOD /path/{param}" -> scope. Fastify publishes each new
 * instance on its initialization channel, which lets an onRoute hook be added to the app buildApp creates before
 * any route exists.
 */
async function registeredScopedRoutes(): Promise<Map<string, Scope>> {
  const routes = new Map<string, Scope>();
  await forEachRegisteredRoute((route) => {
    const scope = route.config?.scope;
    if (!scope) return;
    for (const method of [route.method].flat()) {
      // Fastify adds a HEAD route for each GET, with the same options: the GET row covers it.
      if (method !== 'HEAD') routes.set(`${method} ${route.url.replace(/:(\w+)/g, '{$1}')}`, scope);
    }
  });
  return routes;
}

const changeLastCharacter = (key: string) => key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
const unknownKey = () => `lik_${randomBytes(32).toString('base64url')}`;

/** Every 401 is problem+json naming the request, and tells the client how to authenticate. */
function expectUnauthorized(res: LightMyRequestResponse, detail: RegExp) {
  expect(res.statusCode).toBe(401);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.headers['www-authenticate']).toMatch(/X-API-Key/);
  const body = res.json();
  expect(body).toMatchObject({
    type: 'https://lead-intake.dev/errors/unauthorized',
    title: expect.any(String),
    status: 401,
    requestId: res.headers['x-request-id'],
  });
  expect(body.detail).toMatch(detail);
}

async function poll<T>(probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the security matrix', () => {
  it('has a row for every scoped route the app registers, with the scope the route checks', async () => {
    const registered = await registeredScopedRoutes();
    expect(registered.size, 'no scoped route was recorded').toBeGreaterThan(0);
    const rows = new Map(ROUTES.map((route) => [route.name, route.scope]));
    expect(rows.size, 'two rows have the same name').toBe(ROUTES.length);
    const missing = [...registered].filter(([name]) => !rows.has(name)).map(([name]) => name);
    expect(missing, 'scoped routes without a row in ROUTES').toEqual([]);
    const stale = [...rows].filter(([name]) => !registered.has(name)).map(([name]) => name);
    expect(stale, 'rows for routes the app does not register with a scope').toEqual([]);
    expect(Object.fromEntries(rows), 'a row names another scope than its route checks').toEqual(
      Object.fromEntries(registered),
    );
  });
});

describe.each(dialects())('security matrix on %s', (dialect) => {
  let ctx: TestContext;
  let receiver: Receiver;
  const fx = {} as Fixtures;

  const createEndpoint = async (key: string) => {
    const res = await ctx.api.post('/v1/webhook-endpoints', { url: fx.hookUrl }, { key });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    fx.hookUrl = receiver.url();
    ctx = await createTestContext(dialect, { webhooks: TEST_WEBHOOKS });
    // Endpoints first, so the leads below queue deliveries to them.
    fx.endpointId = await createEndpoint(ctx.keys.full);
    fx.deleteEndpointId = await createEndpoint(ctx.keys.full);
    fx.otherEndpointId = await createEndpoint(ctx.keys.other);
    const createForm = async (key: string) => {
      const res = await ctx.api.post(
        '/v1/forms',
        { name: 'Matrix form', allowedOrigins: ['https://www.example.nl'] },
        { key },
      );
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    fx.formId = await createForm(ctx.keys.full);
    fx.deleteFormId = await createForm(ctx.keys.full);
    fx.otherFormId = await createForm(ctx.keys.other);

    const lead = await ctx.createLead();
    fx.leadId = lead.id as string;
    fx.addressId = lead.addressId as string;
    fx.customerId = lead.customerId as string;
    const note = await ctx.api.post(`/v1/leads/${fx.leadId}/notes`, { text: 'Matrix note' });
    expect(note.statusCode, note.body).toBe(201);
    fx.noteId = note.json().id as string;
    const addPhoto = async () => {
      const body = multipart([{ filename: 'dot.png', type: 'image/png', data: TINY_PNG }]);
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/v1/leads/${fx.leadId}/attachments`,
        headers: { ...body.headers, 'x-api-key': ctx.keys.full },
        payload: body.payload,
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data[0].id as string;
    };
    fx.attachmentId = await addPhoto();
    fx.deleteAttachmentId = await addPhoto();
    fx.patchLeadId = (await ctx.createLead()).id as string;
    fx.eraseCustomerId = (await ctx.createLead()).customerId as string;
    fx.mergeIntoId = (await ctx.createLead()).customerId as string;
    fx.mergeFromId = (await ctx.createLead()).customerId as string;
    fx.workItemId = (await ctx.createLead()).id as string;
    await ctx.setStatus(fx.workItemId, 'scheduled');

    const other = await ctx.createLead({}, ctx.keys.other);
    fx.otherLeadId = other.id as string;
    fx.otherAddressId = other.addressId as string;
    fx.otherCustomerId = other.customerId as string;
    fx.otherWorkItemId = (await ctx.createLead({}, ctx.keys.other)).id as string;
    const scheduled = await ctx.api.patch(
      `/v1/leads/${fx.otherWorkItemId}`,
      { status: 'scheduled' },
      { key: ctx.keys.other },
    );
    expect(scheduled.statusCode).toBe(200);

    const db = ctx.app.deps.database.db;
    const delivery = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_id'])
      .where('endpoint_id', '=', fx.endpointId)
      .executeTakeFirstOrThrow();
    fx.deliveryId = delivery.id;
    fx.deliveryEventId = delivery.event_id;
    const firstEvent = (brandId: string) =>
      db.selectFrom('events').select('id').where('brand_id', '=', brandId).orderBy('id').limit(1);
    fx.eventId = (await firstEvent(ctx.brandId).executeTakeFirstOrThrow()).id;
    fx.otherEventId = (await firstEvent(ctx.otherBrandId).executeTakeFirstOrThrow()).id;
  });
  afterAll(async () => {
    await ctx?.close();
    await receiver?.close();
  });

  const send = (route: RouteCase, headers: Record<string, string | undefined>) => {
    const options = route.request(fx);
    const merged = { ...(options.headers as Record<string, string>), ...headers };
    for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
    return ctx.app.inject({ ...options, headers: merged });
  };

  describe.each(ROUTES)('$name (scope $scope)', (route) => {
    const refusals: { label: string; key: () => string | undefined; detail: RegExp }[] = [
      { label: 'no key', key: () => undefined, detail: /X-API-Key/ },
      { label: 'an empty key', key: () => '', detail: /X-API-Key/ },
      { label: 'an unknown key', key: unknownKey, detail: /not valid/ },
      { label: 'a malformed key', key: () => 'not-a-key', detail: /not valid/ },
      { label: 'a truncated key', key: () => ctx.keys.full.slice(0, -1), detail: /not valid/ },
      {
        label: 'a key with one character changed',
        key: () => changeLastCharacter(ctx.keys.full),
        detail: /not valid/,
      },
      { label: 'a revoked key', key: () => ctx.keys.revoked, detail: /revoked/ },
      { label: 'an expired key', key: () => ctx.keys.expired, detail: /expired/ },
    ];

    it.each(refusals)('401 with $label', async ({ key, detail }) => {
      expectUnauthorized(await send(route, { 'x-api-key': key() }), detail);
    });

    // Before the scope checks: after a successful DELETE this 404 would prove nothing.
    const { recordId } = route;
    if (recordId) {
      it("another brand's id is a 404, exactly like an unknown id", async () => {
        const res = await send(route, { 'x-api-key': ctx.keys.other });
        expect(res.statusCode).toBe(404);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        const body = res.json();
        expect(body).toMatchObject({
          type: 'https://lead-intake.dev/errors/not-found',
          status: 404,
          requestId: res.headers['x-request-id'],
        });

        // Same answer as for an id nobody has: nothing tells the other brand that the record exists.
        const request = route.request(fx);
        const realId = recordId(fx);
        const unknownId = `${realId.split('_')[0]}_${'0'.repeat(26)}`;
        const unknown = await ctx.app.inject({
          ...request,
          url: String(request.url).replace(realId, unknownId),
          headers: { ...(request.headers as Record<string, string>), 'x-api-key': ctx.keys.other },
        });
        expect(unknown.statusCode).toBe(404);
        const { requestId: _a, ...rest } = body;
        const { requestId: _b, ...unknownRest } = unknown.json();
        expect(JSON.stringify(rest).replaceAll(realId, 'ID')).toBe(
          JSON.stringify(unknownRest).replaceAll(unknownId, 'ID'),
        );
      });
    }

    it.each(ALL_SCOPES)('with a key of scope %s: allowed only when the scope fits', async (scope) => {
      const res = await send(route, { 'x-api-key': ctx.keys[scope] });
      if (scope === route.scope || scope === 'full') {
        expect(res.statusCode, res.body).toBe(route.success);
        if (route.expectText) {
          expect(res.headers['content-type']).toMatch(route.expectText.type);
          route.expectText.check(res.body, fx);
          return;
        }
        if (!route.expectBody) {
          expect(res.body).toBe('');
          return;
        }
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        route.expectBody(res.json(), fx);
        return;
      }
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const body = res.json();
      expect(body).toMatchObject({
        type: 'https://lead-intake.dev/errors/forbidden',
        title: expect.any(String),
        status: 403,
        requestId: res.headers['x-request-id'],
        requiredScope: route.scope,
      });
      expect(body.detail).toContain(`"${route.scope}"`);
    });
  });

  it("a state change with another brand's key changes nothing", async () => {
    const res = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/leads/${fx.leadId}`,
      headers: { ...json, 'x-api-key': ctx.keys.other },
      payload: { status: 'cancelled' },
    });
    expect(res.statusCode).toBe(404);
    const lead = await ctx.api.get(`/v1/leads/${fx.leadId}`);
    expect(lead.json().status).toBe('request');
  });

  it.each(LISTS)('$url shows each brand only its own records', async ({ url, mine, theirs }) => {
    const ids = async (key: string) => {
      const res = await ctx.api.get(`${url}?limit=100`, { key });
      expect(res.statusCode).toBe(200);
      return (res.json().data as { id: string }[]).map((item) => item.id);
    };
    const brandA = await ids(ctx.keys.full);
    const brandB = await ids(ctx.keys.other);
    expect(brandA).toContain(mine(fx));
    expect(brandA).not.toContain(theirs(fx));
    expect(brandB).toContain(theirs(fx));
    expect(brandB).not.toContain(mine(fx));
    expect(brandB.filter((id) => brandA.includes(id))).toEqual([]);
  });

  describe('authentication comes before reading the body', () => {
    it.each([
      { label: 'an invalid lead', payload: JSON.stringify({ postcode: 'x' }), type: 'application/json' },
      { label: 'malformed JSON', payload: '{"street": ', type: 'application/json' },
      { label: 'an empty body', payload: '', type: 'application/json' },
      { label: 'a text body', payload: 'hello', type: 'text/plain' },
      {
        label: 'a body over 64 KiB',
        payload: JSON.stringify({ notes: 'x'.repeat(70_000) }),
        type: 'application/json',
      },
    ])('no key and $label: 401, not a body error', async ({ payload, type }) => {
      const res = await ctx.api.post('/v1/leads', raw(payload), {
        key: null,
        headers: { 'content-type': type },
      });
      expectUnauthorized(res, /X-API-Key/);
    });

    it('a revoked key and an invalid body: 401', async () => {
      const res = await ctx.api.post('/v1/leads', raw('{"postcode": "x"}'), { key: ctx.keys.revoked });
      expectUnauthorized(res, /revoked/);
    });

    it('no key and an invalid state change: 401', async () => {
      const res = await ctx.api.patch(`/v1/leads/${fx.leadId}`, { status: 'nonsense' }, { key: null });
      expectUnauthorized(res, /X-API-Key/);
    });

    it('a key without the scope and an invalid body: 403, not 422', async () => {
      const res = await ctx.api.post('/v1/leads', raw('{"postcode": "x"}'), { key: ctx.keys['leads:read'] });
      expect(res.statusCode).toBe(403);
      expect(res.json().requiredScope).toBe('leads:write');
    });
  });
});

describe.each(dialects())('API key cache and lastUsedAt on %s', (dialect) => {
  const ttlMs = 200;
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect, { keyCacheTtlMs: ttlMs });
  });
  afterAll(async () => ctx?.close());

  it('a key revoked in the database is refused once the cache TTL has passed', async () => {
    const key = ctx.keys['leads:read'];
    const started = Date.now();
    expect((await ctx.api.get('/v1/leads', { key })).statusCode).toBe(200);
    await ctx.app.deps.database.db
      .updateTable('api_keys')
      .set({ revoked_at: Date.now() })
      .where('id', '=', ctx.keyIds['leads:read']!)
      .execute();
    const cached = await ctx.api.get('/v1/leads', { key });
    // Only when this ran within the TTL must the cached answer still stand; a slow machine proves nothing.
    if (Date.now() - started < ttlMs) expect(cached.statusCode).toBe(200);

    const refused = await poll(async () => {
      const res = await ctx.api.get('/v1/leads', { key });
      return res.statusCode === 401 ? res : undefined;
    });
    expect(refused, 'the revoked key was still accepted after the cache TTL').toBeDefined();
    expectUnauthorized(refused!, /revoked/);
  });

  it('records lastUsedAt when a key is used', async () => {
    const id = ctx.keyIds['work-items:read']!;
    const lastUsed = () =>
      ctx.app.deps.database.db
        .selectFrom('api_keys')
        .select('last_used_at')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
        .then((row) => row.last_used_at);
    expect(await lastUsed()).toBeNull();
    const before = Date.now();
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/v1/work-items',
      headers: { 'x-api-key': ctx.keys['work-items:read'] },
    });
    expect(res.statusCode).toBe(200);
    const recorded = await poll(async () => (await lastUsed()) ?? undefined);
    expect(recorded, 'lastUsedAt was never written').toBeDefined();
    expect(recorded!).toBeGreaterThanOrEqual(before);
    expect(recorded!).toBeLessThanOrEqual(Date.now());
  });
});
