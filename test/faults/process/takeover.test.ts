// SIGKILL of an instance that holds leased webhook deliveries and mails (its receiver and its mail server stopped
// answering): nothing is sent twice while its leases run (it renews them while alive), and once it is dead the other
// instance takes every job over within the lease and sends each once. PostgreSQL, two instances.
import { afterAll, describe, expect, it } from 'vitest';
import { queueEmail } from '../../../src/mail/outbox.js';
import { openDatabase } from '../../../src/platform/db/database.js';
import { MAX_LEASE_MS } from '../../../src/platform/queue/leased-worker.js';
import { startSmtp } from '../../mail/smtp.js';
import { startReceiver } from '../../receiver.js';
import {
  databaseConfig,
  dropStorage,
  leadBody,
  newStorage,
  postgresUrl,
  request,
  ServerProcess,
  type Storage,
  seedBrandAndKey,
  sleep,
} from './harness.js';
import { silentSmtp } from './hung-peers.js';

const DELIVERIES = 5;
const MAILS = 3;

describe.skipIf(!postgresUrl())('SIGKILL of an instance holding leased jobs on postgres', () => {
  const storages: Storage[] = [];
  afterAll(async () => {
    for (const storage of storages) await dropStorage(storage);
  });

  it('the other instance delivers every job, once, within the lease', async () => {
    const storage = newStorage('postgres');
    storages.push(storage);
    const { brandId, key } = await seedBrandAndKey(storage);
    const hung = await silentSmtp();
    const good = await startSmtp();
    // Holds every request until the first instance is dead, then answers 200.
    let answering = false;
    const receiver = await startReceiver((_req, res) => {
      if (answering) res.writeHead(200).end('ok');
    });
    const webhooks = {
      WEBHOOKS_ALLOW_HTTP: '1',
      WEBHOOKS_ALLOW_PRIVATE: '1',
      WEBHOOKS_TIMEOUT_MS: '60000',
      MAIL_FROM: 'leads@example.com',
    };
    const a = await ServerProcess.start(storage, {
      env: { ...webhooks, SMTP_URL: `smtp://127.0.0.1:${hung.port}` },
    });
    let b: ServerProcess | undefined;
    const database = openDatabase(databaseConfig(storage), 'FULL', { publicUrl: a.url });
    try {
      const headers = { 'content-type': 'application/json', 'x-api-key': key };
      const endpoint = await request(`${a.url}/v1/webhook-endpoints`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: receiver.url(), events: ['lead.created'] }),
      });
      expect(endpoint.status).toBe(201);
      for (let i = 0; i < DELIVERIES; i++) {
        const lead = await request(`${a.url}/v1/leads`, {
          method: 'POST',
          headers,
          body: JSON.stringify(leadBody('takeover', i)),
        });
        expect(lead.status).toBe(201);
      }
      for (let i = 0; i < MAILS; i++) {
        await database.write((tx) =>
          queueEmail(tx, {
            brandId,
            kind: 'new_lead',
            recipient: `office${i}@example.com`,
            subject: `Takeover ${i}`,
            text: `mail ${i}`,
            html: `<p>mail ${i}</p>`,
          }),
        );
      }
      // The first instance holds every job, stuck on its peers.
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(100)) {
        if (receiver.received.length >= DELIVERIES && hung.mailFromSeen >= MAILS) break;
      }
      expect(receiver.received.length, a.log).toBe(DELIVERIES);
      expect(hung.mailFromSeen, a.log).toBe(MAILS);

      // A second instance starts; while the first is alive its leases hold (renewed), so nothing runs twice.
      b = await ServerProcess.start(storage, {
        env: { ...webhooks, SMTP_URL: `smtp://127.0.0.1:${good.port}` },
      });
      await sleep(MAX_LEASE_MS / 2);
      expect(receiver.received.length).toBe(DELIVERIES);
      expect(good.received.length).toBe(0);

      answering = true;
      const killedAt = Date.now();
      a.kill('SIGKILL');
      await a.exited;
      let doneAt = 0;
      for (const deadline = Date.now() + 90_000; Date.now() < deadline; await sleep(100)) {
        const delivered = await database.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '=', 'succeeded')
          .execute();
        if (delivered.length === DELIVERIES && good.received.length === MAILS) {
          doneAt = Date.now();
          break;
        }
      }
      const takeoverMs = doneAt - killedAt;
      console.log(
        `[takeover, postgres] SIGKILL of an instance holding ${DELIVERIES} deliveries and ${MAILS} mails: all ` +
          `delivered by the other ${(takeoverMs / 1000).toFixed(1)} s later (lease ${MAX_LEASE_MS / 1000} s)`,
      );
      expect(doneAt, b.log).toBeGreaterThan(0);
      expect(takeoverMs).toBeLessThanOrEqual(MAX_LEASE_MS + 10_000);
      // Each event reached the receiver twice: the attempt the killed instance never finished, and one more.
      const byEvent = new Map<string, number>();
      for (const r of receiver.received) {
        const id = String(r.headers['lead-intake-event-id']);
        byEvent.set(id, (byEvent.get(id) ?? 0) + 1);
      }
      expect([...byEvent.values()]).toEqual(Array(DELIVERIES).fill(2));
      // Each mail arrived once.
      expect(good.received.map((m) => m.to[0]).sort()).toEqual(
        Array.from({ length: MAILS }, (_, i) => `office${i}@example.com`),
      );
    } finally {
      await database.close();
      await b?.stop();
      a.kill('SIGKILL');
      await receiver.close();
      await hung.close();
      await good.close();
    }
  }, 180_000);
});
