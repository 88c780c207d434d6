// Peers that stop answering in the middle: an SMTP server that goes silent after MAIL FROM and a webhook
// receiver that never answers. A server under test leases one mail and one delivery to them and waits.
import net from 'node:net';
import { queueEmail } from '../../../src/mail/outbox.js';
import { openDatabase } from '../../../src/platform/db/database.js';
import { startReceiver } from '../../receiver.js';
import {
  databaseConfig,
  leadBody,
  request,
  type ServerProcess,
  type Storage,
  seedBrandAndKey,
  sleep,
} from './harness.js';

export interface LeaseRow {
  table: string;
  status: string;
  attempt: number;
  lease_owner: string | null;
  lease_until: number;
}

/** An SMTP server that greets, answers EHLO and then says nothing more, keeping the connection open. */
export async function silentSmtp() {
  const sockets = new Set<net.Socket>();
  let mailFrom = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.write('220 hung.test ESMTP\r\n');
    socket.on('data', (chunk) => {
      const line = chunk.toString();
      if (/^(EHLO|HELO)/i.test(line)) socket.write('250-hung.test\r\n250 8BITMIME\r\n');
      else if (/^MAIL FROM/i.test(line)) mailFrom++;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get mailFromSeen() {
      return mailFrom;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export async function startHungPeers(storage: Storage) {
  const smtp = await silentSmtp();
  let deliveriesArrived = 0;
  // Never answers: the delivery waits for WEBHOOKS_TIMEOUT_MS (60 s).
  const receiver = await startReceiver(() => {
    deliveriesArrived++;
  });
  const { brandId, key } = await seedBrandAndKey(storage);
  const env = {
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    MAIL_FROM: 'leads@example.com',
    WEBHOOKS_ALLOW_HTTP: '1',
    WEBHOOKS_ALLOW_PRIVATE: '1',
    WEBHOOKS_TIMEOUT_MS: '60000',
  };

  const rows = async (): Promise<LeaseRow[]> => {
    const database = openDatabase(databaseConfig(storage));
    try {
      const pick = ['status', 'attempt', 'lease_owner', 'lease_until'] as const;
      const deliveries = await database.db.selectFrom('webhook_deliveries').select(pick).execute();
      const mails = await database.db.selectFrom('email_outbox').select(pick).execute();
      return [
        ...deliveries.map((r) => ({ table: 'webhook_deliveries', ...r })),
        ...mails.map((r) => ({ table: 'email_outbox', ...r })),
      ].map((r) => ({ ...r, attempt: Number(r.attempt), lease_until: Number(r.lease_until) }));
    } finally {
      await database.close();
    }
  };

  return {
    env,
    key,
    /** What both rows look like once handed back: pending, no attempt counted, no lease. */
    handedBack: [
      { table: 'webhook_deliveries', status: 'pending', attempt: 0, lease_owner: null, lease_until: 0 },
      { table: 'email_outbox', status: 'pending', attempt: 0, lease_owner: null, lease_until: 0 },
    ],
    leases: rows,
    /** Queues one delivery and one mail and waits until `server` is stuck on both. */
    async holdOne(server: ServerProcess): Promise<void> {
      const endpoint = await request(`${server.url}/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ url: receiver.url(), events: ['lead.created'] }),
      });
      if (endpoint.status !== 201) throw new Error(`endpoint: ${JSON.stringify(endpoint.body)}`);
      const lead = await request(`${server.url}/v1/leads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(leadBody('hung', 1)),
      });
      if (lead.status !== 201) throw new Error(`lead: ${JSON.stringify(lead.body)}`);
      const database = openDatabase(databaseConfig(storage), 'FULL', { publicUrl: server.url });
      try {
        await database.write((tx) =>
          queueEmail(tx, {
            brandId,
            kind: 'new_lead',
            recipient: 'someone@example.com',
            subject: 'A mail the server will never take',
            text: 'text',
            html: '<p>html</p>',
          }),
        );
      } finally {
        await database.close();
      }
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(50)) {
        if (deliveriesArrived > 0 && smtp.mailFromSeen > 0) break;
      }
      if (!deliveriesArrived || !smtp.mailFromSeen) {
        throw new Error(
          `not stuck: ${deliveriesArrived} deliveries, ${smtp.mailFromSeen} MAIL FROM\n${server.log}`,
        );
      }
      const held = await rows();
      if (held.length !== 2 || held.some((r) => r.lease_owner === null)) {
        throw new Error(`expected two leased rows, got ${JSON.stringify(held)}`);
      }
    },
    async close() {
      await receiver.close();
      await smtp.close();
    },
  };
}
