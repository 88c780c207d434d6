// Webhook deliveries end to end: the real worker POSTing to a real HTTP receiver on 127.0.0.1.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { verifySignature } from '../../src/index.js';
import { apiClient } from '../api.js';
import {
  createTestContext,
  dialects,
  TEST_WEBHOOKS,
  type TestContext,
  validLead,
  waitFor,
} from '../helpers.js';
import { type Handler, ok, type Receiver, startReceiver } from '../receiver.js';
import { useTestContext } from '../test-context.js';

// Lead events only: these tests count deliveries per lead, and a new customer adds a customer.created event.
const LEAD_EVENTS = ['lead.created', 'lead.status_changed'];

const SHORT_TIMEOUT_MS = 300;

const fail500: Handler = (_req, res) => {
  res.writeHead(500).end('nope');
};

interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  attempt: number;
  status: string;
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
  nextAttemptAt: string | null;
}

describe.each(dialects())('webhook deliveries on %s', (dialect) => {
  const ctx = useTestContext(dialect, { webhooks: TEST_WEBHOOKS });
  let receiver: Receiver;
  afterEach(async () => {
    await ctx.app.deps.database.db.deleteFrom('webhook_endpoints').execute();
    await receiver?.close();
  });

  const createEndpoint = async (body: Record<string, unknown> = {}, on = ctx) => {
    const res = await on.api.post('/v1/webhook-endpoints', {
      url: receiver.url(),
      events: LEAD_EVENTS,
      ...body,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; secret: string };
  };

  const deliveries = async (endpointId: string, on = ctx): Promise<Delivery[]> =>
    (await on.api.get(`/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`)).json().data;

  const deliveryOf = async (endpointId: string, eventId: string, on = ctx) =>
    (await deliveries(endpointId, on)).find((d) => d.eventId === eventId);

  const latestEventId = async (on = ctx) => (await on.api.get('/v1/events?limit=1')).json().data[0].id;

  it('POSTs the event JSON, signed, with the event id; the log records the attempt', async () => {
    receiver = await startReceiver();
    const endpoint = await createEndpoint();
    const lead = await ctx.createLead({ title: 'Deliver me' });
    const eventId = await latestEventId();
    const [request] = await waitFor(
      () => receiver.forEvent(eventId).length && receiver.forEvent(eventId),
      'delivery',
    );
    expect(request!.path).toBe('/hook');
    expect(request!.headers['content-type']).toBe('application/json');
    const signature = request!.headers['lead-intake-signature'] as string;
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(endpoint.secret, signature, request!.body)).toBe(true);
    expect(
      verifySignature(endpoint.secret, signature, request!.body.replace('Deliver me', 'Deliver you')),
    ).toBe(false);
    expect(verifySignature(`${endpoint.secret}x`, signature, request!.body)).toBe(false);

    const event = JSON.parse(request!.body);
    const page = await ctx.api.get('/v1/events?limit=1');
    expect(event).toEqual(page.json().data[0]);
    // Byte for byte: the list is built from the same stored text as the delivery.
    expect(page.body).toBe(
      `{"data":[${request!.body}],"limit":1,"hasMore":true,"nextCursor":${JSON.stringify(page.json().nextCursor)}}`,
    );
    expect(event).toMatchObject({ id: eventId, type: 'lead.created', data: { lead: { id: lead.id } } });

    const delivery = await waitFor(
      async () =>
        (await deliveryOf(endpoint.id, eventId))?.status === 'succeeded' && deliveryOf(endpoint.id, eventId),
      'succeeded delivery',
    );
    expect(delivery).toMatchObject({
      eventType: 'lead.created',
      attempt: 1,
      status: 'succeeded',
      responseStatus: 200,
      error: null,
      nextAttemptAt: null,
    });
    expect(delivery!.id).toMatch(/^whd_/);
    expect(typeof delivery!.durationMs).toBe('number');
  });

  it('retries a failing receiver until it succeeds, with the same event and body', async () => {
    receiver = await startReceiver((req, res, index) => (index === 0 ? fail500 : ok)(req, res, index));
    const endpoint = await createEndpoint();
    await ctx.createLead();
    const eventId = await latestEventId();
    const delivery = await waitFor(
      async () =>
        (await deliveryOf(endpoint.id, eventId))?.status === 'succeeded' && deliveryOf(endpoint.id, eventId),
      'delivery to succeed after a failure',
    );
    expect(delivery).toMatchObject({ attempt: 2, responseStatus: 200, status: 'succeeded' });
    const requests = receiver.forEvent(eventId);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.body).toBe(requests[0]!.body);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    let redirect = true;
    receiver = await startReceiver((req, res, index) => {
      if (req.url === '/elsewhere') return ok(req, res, index);
      if (redirect) res.writeHead(302, { location: receiver.url('/elsewhere') }).end();
      else ok(req, res, index);
    });
    const endpoint = await createEndpoint();
    await ctx.createLead();
    const eventId = await latestEventId();
    const failed = await waitFor(async () => {
      const d = await deliveryOf(endpoint.id, eventId);
      return d && d.attempt >= 1 && d;
    }, 'a redirected attempt');
    expect(failed).toMatchObject({ status: 'pending', responseStatus: 302 });
    expect(failed.error).toMatch(/redirects are not followed/);
    redirect = false;
    await waitFor(async () => (await deliveryOf(endpoint.id, eventId))?.status === 'succeeded', 'success');
    expect(receiver.received.filter((r) => r.path === '/elsewhere')).toHaveLength(0);
  });

  it('sends only the event types an endpoint subscribes to, and nothing to a disabled endpoint', async () => {
    receiver = await startReceiver();
    const changes = await createEndpoint({ events: ['lead.status_changed'] });
    const off = await createEndpoint();
    await ctx.api.patch(`/v1/webhook-endpoints/${off.id}`, { enabled: false });
    const lead = await ctx.createLead();
    await ctx.setStatus(lead.id as string, 'quoted');
    const changed = await latestEventId();
    await waitFor(async () => (await deliveryOf(changes.id, changed))?.status === 'succeeded', 'delivery');
    const log = await deliveries(changes.id);
    expect(log.map((d) => d.eventType)).toEqual(['lead.status_changed']);
    expect(await deliveries(off.id)).toEqual([]);
    expect(receiver.received.map((r) => JSON.parse(r.body).type)).toEqual(['lead.status_changed']);
  });

  it('sends a delivery again on request, as a new log entry', async () => {
    receiver = await startReceiver();
    const endpoint = await createEndpoint();
    await ctx.createLead();
    const eventId = await latestEventId();
    const first = await waitFor(
      async () =>
        (await deliveryOf(endpoint.id, eventId))?.status === 'succeeded' && deliveryOf(endpoint.id, eventId),
      'first delivery',
    );
    const res = await ctx.api.post(`/v1/webhook-endpoints/${endpoint.id}/deliveries/${first!.id}/resend`);
    expect(res.statusCode).toBe(202);
    const again = res.json();
    expect(again).toMatchObject({ eventId, attempt: 0, status: 'pending' });
    expect(again.id).not.toBe(first!.id);
    await waitFor(() => receiver.forEvent(eventId).length === 2, 'the resent delivery');
    await waitFor(async () => (await deliveries(endpoint.id)).every((d) => d.status === 'succeeded'), 'log');
    expect((await deliveries(endpoint.id)).map((d) => d.id)).toEqual([again.id, first!.id]);

    const missing = await ctx.api.post(
      `/v1/webhook-endpoints/${endpoint.id}/deliveries/whd_00000000000000000000000000/resend`,
    );
    expect(missing.statusCode).toBe(404);
    await ctx.api.patch(`/v1/webhook-endpoints/${endpoint.id}`, { enabled: false });
    const disabled = await ctx.api.post(
      `/v1/webhook-endpoints/${endpoint.id}/deliveries/${first!.id}/resend`,
    );
    expect(disabled.statusCode).toBe(409);
    expect(disabled.json().detail).toMatch(/disabled/);
  });

  it('signs with the new and the previous secret after a rotation', async () => {
    receiver = await startReceiver();
    const endpoint = await createEndpoint();
    const { secret } = (await ctx.api.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`)).json();
    await ctx.createLead();
    const eventId = await latestEventId();
    const [request] = await waitFor(
      () => receiver.forEvent(eventId).length && receiver.forEvent(eventId),
      'delivery',
    );
    const header = request!.headers['lead-intake-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifySignature(secret, header, request!.body)).toBe(true);
    expect(verifySignature(endpoint.secret, header, request!.body)).toBe(true);
  });

  it('two workers on one database send each delivery exactly once', async () => {
    receiver = await startReceiver();
    const second: App = await buildApp(ctx.app.deps.config, {
      database: ctx.app.deps.database,
      migrate: false,
      logger: false,
      defaultMetrics: false,
    });
    await second.ready();
    try {
      const endpoint = await createEndpoint();
      const onSecond = apiClient(second, ctx.keys.full);
      const posts = Array.from({ length: 24 }, (_, i) =>
        (i % 2 ? onSecond : ctx.api).post('/v1/leads', validLead()),
      );
      expect((await Promise.all(posts)).map((r) => r.statusCode)).toEqual(posts.map(() => 201));
      await waitFor(async () => {
        const log = await deliveries(endpoint.id);
        return log.length === 24 && log.every((d) => d.status === 'succeeded');
      }, 'all deliveries to succeed');
      const ids = receiver.received.map((r) => r.headers['lead-intake-event-id']);
      expect(ids).toHaveLength(24);
      expect(new Set(ids).size).toBe(24);
      const owners = await ctx.app.deps.database.db
        .selectFrom('webhook_deliveries')
        .select('attempt')
        .execute();
      expect(owners.every((d) => d.attempt === 1)).toBe(true);
    } finally {
      await second.close();
    }
  });
});

describe.each(dialects())('webhook safety and give-up on %s', (dialect) => {
  let strict: TestContext;
  let quick: TestContext;
  let slowCtx: TestContext;
  let receiver: Receiver;
  beforeAll(async () => {
    // Plain http to 127.0.0.1 allowed, private addresses not: the receiver is on loopback, so it must be refused.
    strict = await createTestContext(dialect, { webhooks: { ...TEST_WEBHOOKS, allowPrivate: false } });
    // A retry window of a moment stands in for 24 hours.
    quick = await createTestContext(dialect, { webhooks: { ...TEST_WEBHOOKS, retryWindowMs: 300 } });
    slowCtx = await createTestContext(dialect, {
      webhooks: { ...TEST_WEBHOOKS, timeoutMs: SHORT_TIMEOUT_MS },
    });
    receiver = await startReceiver(fail500);
  });
  afterAll(async () => {
    await strict?.close();
    await quick?.close();
    await slowCtx?.close();
    await receiver?.close();
  });

  const createEndpointOn = async (on: TestContext, url: string) => {
    const res = await on.api.post('/v1/webhook-endpoints', { url, events: LEAD_EVENTS });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; createdAt: string };
  };
  const latestEventOf = async (on: TestContext) => (await on.api.get('/v1/events?limit=1')).json().data[0].id;
  const deliveryOn = async (on: TestContext, endpointId: string, eventId: string) =>
    (
      (await on.api.get(`/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`)).json().data as Delivery[]
    ).find((d) => d.eventId === eventId);

  it('refuses a private address at send time, even if the endpoint was stored earlier', async () => {
    const created = await strict.api.post('/v1/webhook-endpoints', { url: receiver.url('/strict') });
    expect(created.statusCode).toBe(422);
    expect(created.json().errors[0].message).toMatch(/^resolves to a private address/);
    expect(created.body).not.toContain('127.0.0.1');

    // As if stored while the name resolved elsewhere (or before the policy changed).
    const now = Date.now();
    await strict.app.deps.database.db
      .insertInto('webhook_endpoints')
      .values({
        id: 'whk_01m7zt8f7488qg4qgkt4mq7000',
        brand_id: strict.brandId,
        url: receiver.url('/strict'),
        description: null,
        events: 'lead.created lead.status_changed',
        secret: 'whsec_test',
        previous_secret: null,
        previous_secret_expires_at: null,
        enabled: 1,
        failing_since: null,
        last_success_at: null,
        disabled_at: null,
        disabled_reason: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await strict.createLead();
    const [delivery] = await waitFor(async () => {
      const log = (
        await strict.api.get('/v1/webhook-endpoints/whk_01m7zt8f7488qg4qgkt4mq7000/deliveries')
      ).json().data as Delivery[];
      return log[0]?.attempt ? log : undefined;
    }, 'a refused attempt');
    expect(delivery!.responseStatus).toBeNull();
    expect(delivery!.error).toMatch(/^refused: resolves to a private address \(loopback, private/);
    expect(delivery!.error).not.toContain('127.0.0.1');
    expect(receiver.received.filter((r) => r.path === '/strict')).toHaveLength(0);
  });

  it('counts a receiver slower than the timeout as failed, and retries', async () => {
    let slow = true;
    const slowReceiver = await startReceiver((req, res, index) => {
      if (slow) setTimeout(() => res.writeHead(200).end('late'), SHORT_TIMEOUT_MS * 4);
      else ok(req, res, index);
    });
    const endpoint = await createEndpointOn(slowCtx, slowReceiver.url());
    await slowCtx.createLead();
    const eventId = await latestEventOf(slowCtx);
    const timedOut = await waitFor(async () => {
      const d = await deliveryOn(slowCtx, endpoint.id, eventId);
      return d && d.attempt >= 1 && d;
    }, 'a timed-out attempt');
    expect(timedOut).toMatchObject({ status: 'pending', responseStatus: null });
    expect(timedOut.error).toMatch(/timed out after 300 ms/);
    expect(timedOut.nextAttemptAt).not.toBeNull();
    slow = false;
    const done = await waitFor(
      async () =>
        (await deliveryOn(slowCtx, endpoint.id, eventId))?.status === 'succeeded' &&
        deliveryOn(slowCtx, endpoint.id, eventId),
      'success once the receiver is fast',
    );
    expect(done!.attempt).toBeGreaterThanOrEqual(2);
    await slowReceiver.close();
  });

  it('disables an endpoint that has failed for the whole retry window, and says why', async () => {
    const endpoint = await createEndpointOn(quick, receiver.url('/always-failing'));
    await quick.createLead();
    const disabled = await waitFor(async () => {
      const e = (await quick.api.get(`/v1/webhook-endpoints/${endpoint.id}`)).json();
      return e.enabled === false && e;
    }, 'the endpoint to be disabled');
    expect(disabled.disabledReason).toMatch(/failed for .* hours \(last attempt: HTTP 500\)/);
    expect(Date.parse(disabled.disabledAt)).toBeGreaterThan(Date.parse(endpoint.createdAt));
    const log = (await quick.api.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`)).json()
      .data as Delivery[];
    expect(log.every((d) => d.status === 'failed')).toBe(true);
    expect(log[0]!.attempt).toBeGreaterThanOrEqual(1);
    expect(log[0]!.nextAttemptAt).toBeNull();

    // Disabled: new events queue nothing for it. Enabled again: the record is clean.
    await quick.createLead();
    expect((await quick.api.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`)).json().data).toHaveLength(
      log.length,
    );
    const enabled = await quick.api.patch(`/v1/webhook-endpoints/${endpoint.id}`, { enabled: true });
    expect(enabled.json()).toMatchObject({ enabled: true, disabledAt: null, disabledReason: null });
  });
});
