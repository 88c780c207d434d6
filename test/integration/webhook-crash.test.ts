// A server killed (SIGKILL) while a webhook delivery is in flight: after a restart the delivery is still made.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { verifySignature } from '../../src/index.js';
import { type Database, migrate, openDatabase } from '../../src/platform/db/database.js';
import { dialects, dropSchemaNamed, testSchemaName, validLead, waitFor } from '../helpers.js';
import { type Receiver, startReceiver } from '../receiver.js';
import { request, type ServerProcess, startServer } from './server-process.js';

describe.each(dialects())('a server killed between commit and delivery on %s', (dialect) => {
  let database: Database;
  let env: Record<string, string>;
  let key: string;
  let dataDir: string | undefined;
  const schema = testSchemaName();
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    if (dialect === 'sqlite') {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-crash-'));
      env = { DATA_DIR: dataDir };
      database = openDatabase({ dialect: 'sqlite', file: path.join(dataDir, 'lead-intake.sqlite') }, 'FULL');
      await migrate(database);
    } else {
      const url = process.env.TEST_DATABASE_URL!;
      env = { DATABASE_URL: url, DATABASE_SCHEMA: schema };
      database = openDatabase({ dialect: 'postgres', url, schema, poolMax: 2 });
      await migrate(database, schema);
    }
    // A 1 s timeout makes the lease (2 × timeout + 1 s) short, so the restarted server takes the row over soon.
    Object.assign(env, {
      WEBHOOKS_ALLOW_HTTP: '1',
      WEBHOOKS_ALLOW_PRIVATE: '1',
      WEBHOOKS_TIMEOUT_MS: '1000',
    });
    const brand = await createBrand(database, { language: 'en', name: 'Crash Test Plumbing' });
    key = (await createApiKey(database, { brandId: brand.id, name: 'crash', scopes: ['full'] })).key;
  });

  afterAll(async () => {
    for (const server of servers) await server.kill();
    if (dialect === 'postgres') await dropSchemaNamed(database.db, schema);
    await database?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers the event after a restart', async () => {
    let firstArrived: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      firstArrived = resolve;
    });
    // The first request is never answered: the server is killed while it waits for the response.
    const receiver: Receiver = await startReceiver((_req, res, index) => {
      if (index === 0) firstArrived();
      else res.writeHead(200).end('ok');
    });
    try {
      const first = await startServer(env);
      servers.push(first);
      const endpoint = await (
        await request(first.url, 'POST', '/v1/webhook-endpoints', key, {
          url: receiver.url(),
          events: ['lead.created'],
        })
      ).json();
      const created = await request(
        first.url,
        'POST',
        '/v1/leads',
        key,
        validLead({ title: 'Survives a crash' }),
      );
      expect(created.status).toBe(201);
      const lead = await created.json();

      await arrived;
      await first.kill();
      const row = await database.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('events as e', 'e.id', 'd.event_id')
        .select(['d.id', 'd.status', 'd.attempt', 'e.id as event_id', 'e.data'])
        .where('d.endpoint_id', '=', endpoint.id)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.data).lead.id).toBe(lead.id);
      expect(row).toMatchObject({ status: 'pending', attempt: 0 });

      const second = await startServer(env);
      servers.push(second);
      await waitFor(
        async () =>
          (
            await database.db
              .selectFrom('webhook_deliveries')
              .select('status')
              .where('id', '=', row.id)
              .executeTakeFirstOrThrow()
          ).status === 'succeeded',
        `the delivery to succeed after the restart\n${second.output()}`,
        20_000,
      );
      const requests = receiver.forEvent(row.event_id);
      expect(requests.length).toBeGreaterThanOrEqual(2);
      const last = requests[requests.length - 1]!;
      expect(last.body).toBe(requests[0]!.body);
      expect(
        verifySignature(endpoint.secret, last.headers['lead-intake-signature'] as string, last.body),
      ).toBe(true);
      await second.stop();
      expect(second.child.exitCode).toBe(0);
    } finally {
      await receiver.close();
    }
  });
});
