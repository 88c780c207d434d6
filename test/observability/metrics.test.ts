// /metrics moves when the thing it counts happens: requests by route and status, leads created by source (at
// commit; replays and refusals not), status changes, webhook deliveries and mails by outcome (real receivers), 429s
// by limit, 503s of the overload guard by reason, and each app counts only its own work.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { type App, buildApp } from '../../src/app.js';
import { type ApiClient, apiClient, formPoster } from '../api.js';
import { brandWithKeyAndOwner, phonedInLead, signedIn, textOf } from '../dashboard/helpers.js';
import {
  awayFromWindowEdge,
  dialects,
  dropSchema,
  TEST_WEBHOOKS,
  testConfig,
  validLead,
  waitFor,
} from '../helpers.js';
import { type SmtpReceiver, startSmtp, testMail } from '../mail/smtp.js';
import { ok, type Receiver, startReceiver } from '../receiver.js';
import { captureLogs, counter, sampleValue, scrape } from './support.js';

const SITE = 'https://www.acme.example';
const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(dialects())('metrics on %s', (dialect) => {
  let app: App;
  let smtp: SmtpReceiver;
  let receiver: Receiver;
  let brandId: string;
  let key: string;
  /** Sends the brand's key. */
  let api: ApiClient;
  const logs = captureLogs();

  beforeAll(async () => {
    smtp = await startSmtp();
    receiver = await startReceiver(ok);
    const config = testConfig(dialect, {
      logLevel: 'info',
      logFormat: 'json',
      webhooks: TEST_WEBHOOKS,
      mail: testMail(smtp.url()),
      rateLimit: {
        readsPerMinute: 1_000_000,
        writesPerMinute: 1_000_000,
        failedAuthPerMinute: 2,
        formPostsPerMinute: 2,
      },
    });
    app = await buildApp(config, { logger: { stream: logs.stream }, defaultMetrics: false });
    await app.ready();
    // The owner is told of new leads by mail: every lead queues one.
    ({ brandId, key } = await brandWithKeyAndOwner(app));
    api = apiClient(app, key);
  });
  afterAll(async () => {
    if (app) {
      await dropSchema(app);
      await app.close();
    }
    await receiver?.close();
    await smtp?.close();
  });

  const createLead = async (fields: Record<string, unknown> = {}) => {
    const res = await api.post('/v1/leads', validLead(fields));
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string };
  };
  const leads = (source: string, spam = 'false') =>
    counter(app, 'lead_intake_leads_created_total', { source, spam });
  const deliveries = (outcome: string) => counter(app, 'lead_intake_webhook_deliveries_total', { outcome });
  const emails = (outcome: string) => counter(app, 'lead_intake_emails_total', { outcome });
  const warnings = (message: RegExp) =>
    logs.lines.filter((l) => l.level === 40 && message.test(String(l.msg)));

  it('the latency histogram has method, route template and status code; unknown paths are "unmatched"', async () => {
    const lead = await createLead();
    expect((await api.get(`/v1/leads/${lead.id}`)).statusCode).toBe(200);
    expect((await api.get('/v1/leads/wrk_00000000000000000000000000')).statusCode).toBe(404);
    expect((await api.get('/no/such/path?email=someone@example.com')).statusCode).toBe(404);
    const text = await scrape(app);
    const count = (route: string, status: string) =>
      sampleValue(text, 'lead_intake_http_request_duration_seconds_count', {
        method: 'GET',
        route,
        status_code: status,
      });
    expect(count('/v1/leads/:id', '200')).toBeGreaterThanOrEqual(1);
    expect(count('/v1/leads/:id', '404')).toBeGreaterThanOrEqual(1);
    expect(count('unmatched', '404')).toBeGreaterThanOrEqual(1);
    expect(
      sampleValue(text, 'lead_intake_http_request_duration_seconds_bucket', {
        method: 'GET',
        route: '/v1/leads/:id',
        status_code: '200',
        le: '+Inf',
      }),
    ).toBe(count('/v1/leads/:id', '200'));
    // Route templates only: no ids, no paths, no query strings.
    expect(text).not.toContain(lead.id);
    expect(text).not.toContain('/no/such/path');
    expect(text).not.toContain('someone@example.com');
  });

  it('leads created by source, counted once committed; replays, refused bodies and spam apart', async () => {
    const website = await leads('website');
    await createLead();
    expect(await leads('website')).toBe(website + 1);

    // An idempotent replay returns the first response and creates nothing: not counted again.
    const body = validLead();
    const headers = { 'idempotency-key': `metrics-${dialect}-${Date.now()}` };
    expect((await api.post('/v1/leads', body, { headers })).statusCode).toBe(201);
    const replay = await api.post('/v1/leads', body, { headers });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await leads('website')).toBe(website + 2);
    // Refused input stores nothing and counts nothing.
    expect((await api.post('/v1/leads', { title: '' })).statusCode).toBe(422);
    expect(await leads('website')).toBe(website + 2);

    // A website form: a real post, and a filled honeypot (stored as spam) counted apart.
    const form = await api.post('/v1/forms', { name: 'Contact', allowedOrigins: [SITE] });
    expect(form.statusCode, form.body).toBe(201);
    const formId = form.json().id as string;
    const site = formPoster(app, SITE);
    const [form0, spam0] = [await leads('form'), await leads('form', 'true')];
    expect(
      (await site.form(formId, validLead() as Record<string, string>, { remoteAddress: '198.51.100.10' }))
        .statusCode,
    ).toBe(303);
    expect(
      (
        await site.form(formId, validLead({ _gotcha: 'I am a bot' }) as Record<string, string>, {
          remoteAddress: '198.51.100.11',
        })
      ).statusCode,
    ).toBe(303);
    expect(await leads('form')).toBe(form0 + 1);
    expect(await leads('form', 'true')).toBe(spam0 + 1);

    // Typed in the dashboard during a call.
    const phone = await leads('phone');
    const browser = await signedIn(app, 'owner@acme.example');
    await browser.get('/dashboard/leads/new');
    const saved = await browser.post('/dashboard/leads/new', phonedInLead({ phone: '06 1234 5678' }));
    expect(saved.statusCode, textOf(saved.body)).toBe(303);
    expect(await leads('phone')).toBe(phone + 1);
    expect(await leads('website')).toBe(website + 2);
  });

  it('status changes by the status left and entered; a refused change is not counted', async () => {
    const changes = (from: string, to: string) =>
      counter(app, 'lead_intake_lead_status_changes_total', { from, to });
    const lead = await createLead();
    const [quoted, scheduled] = [await changes('request', 'quoted'), await changes('quoted', 'scheduled')];
    expect((await api.patch(`/v1/leads/${lead.id}`, { status: 'quoted' })).statusCode).toBe(200);
    expect((await api.patch(`/v1/leads/${lead.id}`, { status: 'scheduled' })).statusCode).toBe(200);
    expect((await api.patch(`/v1/leads/${lead.id}`, { status: 'request' })).statusCode).toBe(409);
    expect(await changes('request', 'quoted')).toBe(quoted + 1);
    expect(await changes('quoted', 'scheduled')).toBe(scheduled + 1);
    expect(await changes('scheduled', 'request')).toBe(0);
  });

  it('webhook deliveries by outcome; failed ones logged at warn with endpoint, delivery, event, attempt and reason', async () => {
    const endpoint = async () => {
      const res = await api.post('/v1/webhook-endpoints', {
        url: receiver.url(),
        events: ['lead.created'],
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { id: string; secret: string };
    };
    const pending = (endpointId: string) =>
      app.deps.database.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'event_id'])
        .where('endpoint_id', '=', endpointId)
        .where('status', '=', 'pending')
        .execute();

    // A receiver answering 500: the delivery is retried.
    receiver.setHandler((_req, res) => res.writeHead(500).end('nope'));
    const failing = await endpoint();
    const retrying = await deliveries('retrying');
    await createLead();
    await waitFor(async () => (await deliveries('retrying')) > retrying, 'a retried delivery');
    const [row] = await pending(failing.id);
    const line = await waitFor(
      () =>
        warnings(/^webhook worker: a delivery failed; it is retried$/).find(
          (l) => l.endpointId === failing.id,
        ),
      'the warning',
    );
    expect(line).toMatchObject({
      endpointId: failing.id,
      deliveryId: row!.id,
      eventId: row!.event_id,
      responseStatus: 500,
      reason: 'HTTP 500',
    });
    expect(line.attempt).toBeGreaterThanOrEqual(1);
    expect(logs.raw()).not.toContain(failing.secret);
    expect(logs.raw()).not.toContain(receiver.url());

    // Past its retry window (made so by ageing the row), the next failure gives it up.
    const gaveUp = await deliveries('gave_up');
    await app.deps.database.db
      .updateTable('webhook_deliveries')
      .set({ created_at: Date.now() - 2 * DAY_MS })
      .where('endpoint_id', '=', failing.id)
      .where('status', '=', 'pending')
      .execute();
    await waitFor(async () => (await deliveries('gave_up')) > gaveUp, 'a given-up delivery');
    await waitFor(
      () => warnings(/given up$/).find((l) => l.endpointId === failing.id && l.responseStatus === 500),
      'the give-up warning',
    );
    expect((await api.patch(`/v1/webhook-endpoints/${failing.id}`, { enabled: false })).statusCode).toBe(200);

    // An endpoint switched off while a delivery waits (as the automatic disable does): the delivery is abandoned.
    const off = await endpoint();
    const abandoned = await deliveries('abandoned');
    await createLead();
    await waitFor(async () => (await pending(off.id)).length > 0, 'a pending delivery');
    await app.deps.database.db
      .updateTable('webhook_endpoints')
      .set({ enabled: 0 })
      .where('id', '=', off.id)
      .execute();
    await waitFor(async () => (await deliveries('abandoned')) > abandoned, 'an abandoned delivery');

    // A receiver answering 200.
    receiver.setHandler(ok);
    await endpoint();
    const delivered = await deliveries('delivered');
    await createLead();
    await waitFor(async () => (await deliveries('delivered')) > delivered, 'a delivered delivery');
  });

  it('mails by outcome; failed ones logged at warn with the outbox id and reason, never the message', async () => {
    const sent = await emails('sent');
    smtp.answer = 'accept';
    await createLead();
    await waitFor(async () => (await emails('sent')) > sent, 'a sent mail');

    smtp.answer = 'try-later';
    const retrying = await emails('retrying');
    await createLead({ title: 'Private <title>' });
    await waitFor(async () => (await emails('retrying')) > retrying, 'a retried mail');
    const row = await app.deps.database.db
      .selectFrom('email_outbox')
      .select('id')
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    const line = await waitFor(
      () => warnings(/^mail worker: sending a mail failed; it is retried$/).find((l) => l.emailId === row.id),
      'the warning',
    );
    expect(line.attempt).toBeGreaterThanOrEqual(1);
    expect(String(line.reason)).toMatch(/451/);
    expect(logs.raw()).not.toContain('Private <title>');
    expect(logs.raw()).not.toContain('owner@acme.example');

    const gaveUp = await emails('gave_up');
    await app.deps.database.db
      .updateTable('email_outbox')
      .set({ created_at: Date.now() - 2 * DAY_MS })
      .where('status', '=', 'pending')
      .execute();
    await waitFor(async () => (await emails('gave_up')) > gaveUp, 'a given-up mail');

    smtp.answer = 'refuse';
    const refused = await emails('refused');
    await createLead();
    await waitFor(async () => (await emails('refused')) > refused, 'a refused mail');
    smtp.answer = 'accept';
  });

  it('429s by the limit that answered them', async () => {
    await awayFromWindowEdge();
    const limited = (kind: string) => counter(app, 'lead_intake_rate_limited_requests_total', { kind });
    const small = await createApiKey(app.deps.database, {
      brandId,
      name: 'small',
      scopes: ['full'],
      readsPerMinute: 1,
      writesPerMinute: 1,
    });
    const [reads, writes, auth, form] = [
      await limited('key_read'),
      await limited('key_write'),
      await limited('failed_auth'),
      await limited('form'),
    ];
    expect((await api.get('/v1/leads', { key: small.key })).statusCode).toBe(200);
    expect((await api.get('/v1/leads', { key: small.key })).statusCode).toBe(429);
    expect((await api.post('/v1/leads', validLead(), { key: small.key })).statusCode).toBe(201);
    expect((await api.post('/v1/leads', validLead(), { key: small.key })).statusCode).toBe(429);
    expect(await limited('key_read')).toBe(reads + 1);
    expect(await limited('key_write')).toBe(writes + 1);

    // Bad keys from one address: 401 twice, then 429.
    const bad = { key: 'lik_not_a_key', remoteAddress: '203.0.113.50' };
    expect([
      (await api.get('/v1/leads', bad)).statusCode,
      (await api.get('/v1/leads', bad)).statusCode,
      (await api.get('/v1/leads', bad)).statusCode,
    ]).toEqual([401, 401, 429]);
    expect(await limited('failed_auth')).toBe(auth + 1);

    const created = await api.post('/v1/forms', { name: 'Limited', allowedOrigins: [SITE] });
    const site = formPoster(app, SITE);
    const post = () => site.json(created.json().id, validLead(), { remoteAddress: '203.0.113.60' });
    expect([(await post()).statusCode, (await post()).statusCode, (await post()).statusCode]).toEqual([
      201, 201, 429,
    ]);
    expect(await limited('form')).toBe(form + 1);
  });

  it('503s of the overload guard by reason; /metrics itself is never shed', async () => {
    const shed = (reason: string) => counter(app, 'lead_intake_shed_requests_total', { reason });
    const [inFlight, lag] = [await shed('in_flight'), await shed('event_loop_lag')];
    // The guard's state is what a busy server would have (inject() does not sample the event loop).
    const state = app.overload;
    const saved = { ...state };
    try {
      state.inFlight = app.deps.config.maxInFlight;
      expect((await api.get('/v1/leads')).statusCode).toBe(503);
      state.inFlight = saved.inFlight;
      state.eventLoopDelayMs = app.deps.config.maxEventLoopDelayMs + 1;
      expect((await api.get('/v1/leads')).statusCode).toBe(503);
      expect(await shed('in_flight')).toBe(inFlight + 1);
      expect(await shed('event_loop_lag')).toBe(lag + 1);
    } finally {
      state.inFlight = saved.inFlight;
      state.eventLoopDelayMs = saved.eventLoopDelayMs;
    }
    expect((await api.get('/v1/leads')).statusCode).toBe(200);
  });

  it('an app sharing the database counts only its own work', async () => {
    const other = await buildApp(app.deps.config, {
      database: app.deps.database,
      migrate: false,
      logger: false,
      defaultMetrics: false,
      webhookWorker: false,
      mailWorker: false,
    });
    try {
      await other.ready();
      const website = { source: 'website', spam: 'false' };
      const mine = await leads('website');
      const theirs = await counter(other, 'lead_intake_leads_created_total', website);
      const res = await other.inject({
        method: 'POST',
        url: '/v1/leads',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        payload: JSON.stringify(validLead()),
      });
      expect(res.statusCode).toBe(201);
      expect(await counter(other, 'lead_intake_leads_created_total', website)).toBe(theirs + 1);
      expect(await leads('website')).toBe(mine);
    } finally {
      await other.close();
    }
  });
});

describe('the shutting-down guard', () => {
  it('counts requests refused while the app closes', async () => {
    // No database work: SQLite is enough. A real server, since inject() refuses once closing has begun.
    const app = await buildApp(testConfig('sqlite'), { logger: false, defaultMetrics: false });
    let status: number | undefined;
    // Runs after the guard's own preClose hook (registered earlier), while the server still listens.
    app.addHook('preClose', async () => {
      const { port } = app.server.address() as { port: number };
      status = (await fetch(`http://127.0.0.1:${port}/v1/leads`)).status;
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    await app.close();
    expect(status).toBe(503);
    const text = await app.metrics.metrics();
    expect(sampleValue(text, 'lead_intake_shed_requests_total', { reason: 'shutting_down' })).toBe(1);
  });
});
