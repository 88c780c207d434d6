// Shutting down while a mail is being sent: after the grace period the send is cut off and its row handed back,
// due at once and without an attempt counted, so another instance (or the next start) sends it.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import { type App, buildApp } from '../../src/app.js';
import type { DatabaseConfig } from '../../src/platform/config.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { addUser } from '../dashboard/helpers.js';
import { dialects, dropSchemaNamed, testConfig, testDatabaseConfig, validLead, waitFor } from '../helpers.js';
import { testMail } from './smtp.js';

describe.each(dialects())('a mail in flight at shutdown on %s', (dialect) => {
  let silent: net.Server;
  const sockets = new Set<net.Socket>();
  let port: number;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-mail-'));
    // Accepts connections and never says a word: the send waits for the greeting.
    silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    port = (silent.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent?.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is handed back unsent, due again, with no attempt counted', async () => {
    // A database that outlives the app, to read the row after it has shut down.
    const database: DatabaseConfig =
      dialect === 'sqlite'
        ? { dialect: 'sqlite', file: path.join(dir, 'lead-intake.sqlite') }
        : testDatabaseConfig(dialect);
    const config = testConfig(dialect, {
      database,
      mail: testMail(`smtp://127.0.0.1:${port}`, { timeoutMs: 30_000 }),
    });
    const app: App = await buildApp(config, { logger: false, defaultMetrics: false });
    try {
      await app.ready();
      const store = app.deps.database;
      const brandId = (await createBrand(store, { language: 'en', name: 'Acme Plumbing', country: 'NL' })).id;
      const { key } = await createApiKey(store, { brandId, name: 'site', scopes: ['full'] });
      await addUser(app, brandId, 'owner@acme.example', 'owner');
      const res = await app.inject({
        method: 'POST',
        url: '/v1/leads',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        payload: validLead(),
      });
      expect(res.statusCode).toBe(201);
      // Claimed by this instance and waiting for the server's greeting.
      await waitFor(
        async () =>
          sockets.size > 0 &&
          (await store.db.selectFrom('email_outbox').select('lease_owner').executeTakeFirst())?.lease_owner,
        'the send to start',
      );
    } finally {
      const started = Date.now();
      await app.close();
      // The grace period (3 s), then the send is cut off: well before the lease or the SMTP timeouts end.
      expect(Date.now() - started).toBeLessThan(8000);
    }
    const again = openDatabase(database);
    try {
      const row = await again.db.selectFrom('email_outbox').selectAll().executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'pending', attempt: 0, lease_owner: null, lease_until: 0 });
      expect(row.next_attempt_at).toBeLessThanOrEqual(Date.now());
    } finally {
      if (database.dialect === 'postgres') await dropSchemaNamed(again.db, database.schema);
      await again.close();
    }
  });
});
