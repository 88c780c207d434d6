// Two real server processes on one PostgreSQL schema and one Redis: what one does, the other sees.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { type Database, migrate, openDatabase } from '../../src/platform/db/database.js';
import {
  awayFromWindowEdge,
  dialects,
  dropSchemaNamed,
  testRedisUrl,
  testSchemaName,
  validLead,
  waitFor,
} from '../helpers.js';
import { type Receiver, startReceiver } from '../receiver.js';
import { request, runCli, type ServerProcess, startServer } from './server-process.js';

// Both throw under CI=true when their server is not configured: this test must not be skipped there.
const postgres = dialects().includes('postgres');
const redisUrl = testRedisUrl();

describe.skipIf(!postgres || !redisUrl)('two instances, one database', () => {
  const schema = testSchemaName();
  const env: Record<string, string> = {
    DATABASE_URL: process.env.TEST_DATABASE_URL ?? '',
    DATABASE_SCHEMA: schema,
    REDIS_URL: redisUrl ?? '',
    REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
    KEY_CACHE_TTL_MS: '1000',
    WEBHOOKS_ALLOW_HTTP: '1',
    WEBHOOKS_ALLOW_PRIVATE: '1',
  };
  let a: ServerProcess;
  let b: ServerProcess;
  let database: Database;
  let brandId: string;
  let fullKey: string;

  beforeAll(async () => {
    // Both start on an empty schema at once: their migrations queue on the advisory lock.
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
    database = openDatabase({ dialect: 'postgres', url: env.DATABASE_URL!, schema, poolMax: 2 });
    await migrate(database, schema);
    brandId = (await createBrand(database, { language: 'en', name: 'Two Instance Roofing' })).id;
    fullKey = (await createApiKey(database, { brandId, name: 'full', scopes: ['full'] })).key;
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    if (database) {
      await dropSchemaNamed(database.db, schema);
      await database.close();
    }
  });

  it('a lead created on one is listed on the other', async () => {
    const created = await request(a.url, 'POST', '/v1/leads', fullKey, validLead({ title: 'Made on A' }));
    expect(created.status).toBe(201);
    const { id } = await created.json();
    const listed = await (await request(b.url, 'GET', '/v1/leads?limit=100', fullKey)).json();
    expect(listed.data.map((l: { id: string }) => l.id)).toContain(id);
    expect((await request(b.url, 'GET', `/v1/leads/${id}`, fullKey)).status).toBe(200);
  });

  it('an Idempotency-Key sent to both at once creates one lead', async () => {
    const body = validLead({ title: 'Sent twice' });
    const send = (server: ServerProcess) =>
      fetch(`${server.url}/v1/leads`, {
        method: 'POST',
        headers: {
          'x-api-key': fullKey,
          'content-type': 'application/json',
          'idempotency-key': 'two-instances-1',
        },
        body: JSON.stringify(body),
      });
    const responses = await Promise.all([a, b, a, b, a, b].map(send));
    expect(responses.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    const fresh = responses.filter((r) => r.status === 201 && !r.headers.get('idempotent-replayed'));
    expect(fresh).toHaveLength(1);
    const { id } = (await fresh[0]!.json()) as { id: string };
    for (const server of [a, b]) {
      const again = await send(server);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(((await again.json()) as { id: string }).id).toBe(id);
    }
  });

  it('a key revoked with the CLI is refused by both within a few seconds', async () => {
    const revokable = await createApiKey(database, { brandId, name: 'to revoke', scopes: ['leads:read'] });
    expect((await request(b.url, 'GET', '/v1/leads', revokable.key)).status).toBe(200);
    expect((await request(a.url, 'GET', '/v1/leads', revokable.key)).status).toBe(200);
    const printed = await runCli(['keys', 'revoke', revokable.id], {
      DATABASE_URL: env.DATABASE_URL!,
      DATABASE_SCHEMA: schema,
    });
    expect(printed).toMatch(/Revoked API key/);
    for (const server of [b, a]) {
      await waitFor(
        async () => (await request(server.url, 'GET', '/v1/leads', revokable.key)).status === 401,
        'the revoked key to be refused',
        5000,
        100,
      );
    }
  });

  it('rate limits add up across both instances', async () => {
    for (const server of [a, b]) {
      await waitFor(async () => {
        const ready = (await (await fetch(`${server.url}/readyz`)).json()) as {
          checks: Record<string, string>;
        };
        return ready.checks.rateLimit === 'redis';
      }, 'both instances to count in Redis');
    }
    const { key } = await createApiKey(database, {
      brandId,
      name: 'ten writes',
      scopes: ['leads:write'],
      writesPerMinute: 10,
    });
    await awayFromWindowEdge(15_000);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      for (const server of [a, b]) {
        statuses.push((await request(server.url, 'POST', '/v1/leads', key, validLead())).status);
      }
    }
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
  });

  it('each webhook delivery reaches the receiver exactly once', async () => {
    const receiver: Receiver = await startReceiver();
    try {
      const endpoint = await (
        await request(a.url, 'POST', '/v1/webhook-endpoints', fullKey, {
          url: receiver.url(),
          events: ['lead.created'],
        })
      ).json();
      const count = 30;
      const created = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          request(i % 2 ? b.url : a.url, 'POST', '/v1/leads', fullKey, validLead()),
        ),
      );
      expect(created.map((r) => r.status)).toEqual(created.map(() => 201));
      await waitFor(async () => {
        const rows = await database.db
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('endpoint_id', '=', endpoint.id)
          .execute();
        return rows.length === count && rows.every((r) => r.status === 'succeeded');
      }, 'every delivery to succeed');
      const ids = receiver.received.map((r) => r.headers['lead-intake-event-id']);
      expect(ids).toHaveLength(count);
      expect(new Set(ids).size).toBe(count);
      const owners = await database.db
        .selectFrom('webhook_deliveries')
        .select('attempt')
        .where('endpoint_id', '=', endpoint.id)
        .execute();
      expect(owners.every((d) => d.attempt === 1)).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
