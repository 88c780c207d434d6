import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { apiClient } from '../api.js';
import { brandWithKeyAndOwner } from '../dashboard/helpers.js';
import {
  dialects,
  dropSchema,
  TEST_WEBHOOKS,
  testConfig,
  unreachableDatabase,
  validLead,
} from '../helpers.js';
import { testMail } from '../mail/smtp.js';
import { captureLogs, parseSamples, sampleValue, scrape } from './support.js';

const HOUR_MS = 60 * 60 * 1000;

describe.each(dialects())('queue gauges on %s', (dialect) => {
  let app: App;
  let key: string;

  beforeAll(async () => {
    // Workers off: what is queued stays queued. Email on (nothing listens there), so new leads queue mail.
    const config = testConfig(dialect, { webhooks: TEST_WEBHOOKS, mail: testMail('smtp://127.0.0.1:9') });
    app = await buildApp(config, {
      logger: false,
      defaultMetrics: false,
      webhookWorker: false,
      mailWorker: false,
    });
    await app.ready();
    ({ key } = await brandWithKeyAndOwner(app));
  });
  afterAll(async () => {
    if (app) {
      await dropSchema(app);
      await app.close();
    }
  });

  const gauges = async () => {
    const text = await scrape(app);
    const of = (name: string, queue: string) => sampleValue(text, `lead_intake_queue_${name}`, { queue });
    return {
      deliveries: {
        depth: of('depth', 'webhook_deliveries'),
        age: of('oldest_age_seconds', 'webhook_deliveries'),
      },
      mails: { depth: of('depth', 'email_outbox'), age: of('oldest_age_seconds', 'email_outbox') },
    };
  };

  it('depth and oldest age of the delivery queue and the email outbox', async () => {
    expect(await gauges()).toEqual({ deliveries: { depth: 0, age: 0 }, mails: { depth: 0, age: 0 } });

    const api = apiClient(app, key);
    const endpoint = await api.post('/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hook',
      events: ['lead.created'],
    });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    for (let i = 0; i < 3; i++) expect((await api.post('/v1/leads', validLead())).statusCode).toBe(201);
    const db = app.deps.database.db;
    const [delivery] = await db.selectFrom('webhook_deliveries').select('id').orderBy('id').execute();
    const [mail] = await db.selectFrom('email_outbox').select('id').orderBy('id').execute();
    await db
      .updateTable('webhook_deliveries')
      .set({ created_at: Date.now() - 2 * HOUR_MS })
      .where('id', '=', delivery!.id)
      .execute();
    await db
      .updateTable('email_outbox')
      .set({ created_at: Date.now() - 5 * HOUR_MS })
      .where('id', '=', mail!.id)
      .execute();

    const queued = await gauges();
    expect(queued.deliveries.depth).toBe(3);
    expect(queued.mails.depth).toBe(3);
    // Seconds since the oldest was queued (a minute of slack for a slow machine, never less).
    expect(queued.deliveries.age).toBeGreaterThanOrEqual(2 * 3600);
    expect(queued.deliveries.age).toBeLessThan(2 * 3600 + 60);
    expect(queued.mails.age).toBeGreaterThanOrEqual(5 * 3600);
    expect(queued.mails.age).toBeLessThan(5 * 3600 + 60);

    // Done (delivered, sent) is no longer pending: out of depth and age.
    await db
      .updateTable('webhook_deliveries')
      .set({ status: 'succeeded' })
      .where('id', '=', delivery!.id)
      .execute();
    await db.updateTable('email_outbox').set({ status: 'sent' }).where('id', '=', mail!.id).execute();
    const after = await gauges();
    expect(after.deliveries.depth).toBe(2);
    expect(after.mails.depth).toBe(2);
    expect(after.deliveries.age).toBeLessThan(3600);
    expect(after.mails.age).toBeLessThan(3600);
  });

  it('with the database unreachable, /metrics answers without the queue gauges and warns once', async () => {
    const { database, cut, dispose } = unreachableDatabase(dialect);
    const logs = captureLogs();
    const down = await buildApp(testConfig(dialect, { logLevel: 'info', logFormat: 'json' }), {
      database,
      migrate: false,
      logger: { stream: logs.stream },
      defaultMetrics: false,
      webhookWorker: false,
      mailWorker: false,
    });
    try {
      await down.ready();
      await cut();
      await down.inject({ method: 'GET', url: '/healthz' });
      for (let i = 0; i < 2; i++) {
        const text = await scrape(down);
        const names = new Set(parseSamples(text).map((s) => s.name));
        expect(names).toContain('lead_intake_http_requests_total');
        expect(names).toContain('lead_intake_leads_created_total');
        expect(names).not.toContain('lead_intake_queue_depth');
        expect(names).not.toContain('lead_intake_queue_oldest_age_seconds');
      }
      const warnings = logs.lines.filter((l) =>
        String(l.msg).startsWith('metrics: could not read the queue'),
      );
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 40 });
    } finally {
      await down.close();
      await dispose();
    }
  });
});
