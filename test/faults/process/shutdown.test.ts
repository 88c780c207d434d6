// Draining on SIGTERM (docs/operations.md, "Draining and restarts"): /readyz answers 503 at once while requests
// are still served for SHUTDOWN_DRAIN_MS, then new connections are refused, in-flight requests finish with
// Connection: close, leased jobs go back and the process exits 0, without losing an acknowledged lead. A second
// SIGTERM, or the hard deadline, ends it anyway, whatever a worker waits on.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CLEAN_STORAGE,
  dropStorage,
  faultDialects,
  findLostOrWrong,
  inspectStorage,
  leadBody,
  newStorage,
  request,
  ServerProcess,
  type Storage,
  seedBrandAndKey,
  sleep,
  WriteLoad,
} from './harness.js';
import { startHungPeers } from './hung-peers.js';

/**
 * Sends a POST's headers (with Expect: 100-continue) and half its body now. `accepted` resolves when the
 * server answers 100 Continue: it has parsed the headers and is handling the request. `finish()` sends the
 * rest and resolves with the raw reply.
 */
function startSlowPost(port: number, key: string, body: string) {
  const socket = net.connect(port, '127.0.0.1');
  let reply = '';
  socket.on('data', (chunk) => {
    reply += chunk.toString();
  });
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(reply)));
  const accepted = new Promise<void>((resolve) =>
    socket.on('data', () => {
      if (reply.startsWith('HTTP/1.1 100')) resolve();
    }),
  );
  socket.on('error', () => {});
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST /v1/leads HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-API-Key: ${key}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\nExpect: 100-continue\r\n\r\n${body.slice(0, half)}`,
  );
  return {
    accepted,
    finish(): Promise<string> {
      socket.write(body.slice(half));
      return closed;
    },
  };
}

/** `count` leads of about 4 KB each (a long description), created over 8 connections; each must be a 201. */
async function createLargeLeads(url: string, key: string, count: number, tag: string): Promise<void> {
  let next = 0;
  const create = async () => {
    while (next < count) {
      const n = next++;
      const body = JSON.stringify({ ...leadBody(tag, n), description: `${'Lekkage '.repeat(500)}${n}` });
      const created = await request(`${url}/v1/leads`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body,
      });
      expect(created.status).toBe(201);
    }
  };
  await Promise.all(Array.from({ length: 8 }, create));
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe.each(faultDialects())('SIGTERM under load on %s', (dialect) => {
  const storages: Storage[] = [];
  afterAll(async () => {
    for (const storage of storages) await dropStorage(storage);
  });

  it('drains: /readyz 503 at once, serves on for SHUTDOWN_DRAIN_MS, finishes in-flight, exits 0', async () => {
    const drainMs = 2000;
    const storage = newStorage(dialect);
    storages.push(storage);
    const { key } = await seedBrandAndKey(storage);
    const server = await ServerProcess.start(storage, { env: { SHUTDOWN_DRAIN_MS: String(drainMs) } });
    const load = new WriteLoad(() => server.url, key);
    load.start(8);
    while (load.acknowledged.size < 50) await sleep(10);

    const sent = leadBody('slow', 1);
    const slow = startSlowPost(server.port, key, JSON.stringify(sent));
    // The server is handling the request (it answered 100 Continue) before the signal arrives.
    await slow.accepted;
    const signalledAt = Date.now();
    server.kill('SIGTERM');
    const acknowledgedAtSignal = load.acknowledged.size;

    // /readyz says 503 at once; /healthz stays 200.
    let notReadyAfterMs = Number.POSITIVE_INFINITY;
    for (const deadline = Date.now() + 2000; Date.now() < deadline; await sleep(10)) {
      const ready = await request(`${server.url}/readyz`);
      if (ready.status === 503) {
        notReadyAfterMs = Date.now() - signalledAt;
        expect(Number(ready.retryAfter)).toBeGreaterThan(0);
        break;
      }
    }
    expect(notReadyAfterMs).toBeLessThan(500);
    expect((await request(`${server.url}/healthz`)).status).toBe(200);

    // Still serving new connections and new requests, well into the drain.
    await sleep(drainMs / 2);
    expect(await connects(server.port)).toBe(true);
    const duringBody = leadBody('during', 1);
    const during = await request(`${server.url}/v1/leads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(duringBody),
    });
    expect(during.status, JSON.stringify(during.body)).toBe(201);
    expect(Date.now() - signalledAt).toBeLessThan(drainMs);

    // Then new connections are refused while the in-flight request is still open.
    let refusedAfterMs = 0;
    for (const deadline = Date.now() + drainMs + 5000; Date.now() < deadline; await sleep(20)) {
      if (!(await connects(server.port))) {
        refusedAfterMs = Date.now() - signalledAt;
        break;
      }
    }
    expect(refusedAfterMs).toBeGreaterThanOrEqual(drainMs - 100);
    const reply = await slow.finish();
    expect(reply).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
    expect(reply).toMatch(/\r\nconnection: close\r\n/i);
    const slowId = /"id":"(wrk_[0-9a-z]{26})"/.exec(reply)?.[1];
    expect(slowId).toBeTruthy();

    const exit = await server.exited;
    const tookMs = Date.now() - signalledAt;
    await load.stop();
    expect(exit, server.log).toEqual({ code: 0, signal: null });
    expect(tookMs).toBeLessThan(drainMs + 10_000);

    // Every request that got an answer was served: none was refused with a 503 while draining.
    const answered = load.outcomes.filter((o) => o.status !== 0);
    expect(answered.filter((o) => o.status !== 201)).toEqual([]);
    const servedDuringDrain = answered.filter((o) => o.startedAt > signalledAt + 100);
    expect(servedDuringDrain.length).toBeGreaterThan(0);
    expect(load.acknowledged.size).toBeGreaterThan(acknowledgedAtSignal);
    console.log(
      `[drain ${dialect}] /readyz 503 after ${notReadyAfterMs} ms; ${servedDuringDrain.length} requests served ` +
        `during the drain; refused after ${refusedAfterMs} ms; exit 0 after ${tookMs} ms`,
    );

    // Closed cleanly: SQLite folded its write-ahead log back into the database file.
    if (dialect === 'sqlite') {
      const wal = path.join(storage.dataDir, 'lead-intake.sqlite-wal');
      expect(fs.existsSync(wal) ? fs.statSync(wal).size : 0).toBe(0);
    }
    expect(await inspectStorage(storage)).toMatchObject(CLEAN_STORAGE);

    const restarted = await ServerProcess.start(storage);
    load.acknowledged.set(slowId!, sent);
    load.acknowledged.set(String(during.body?.id), duringBody);
    expect(await findLostOrWrong(restarted.url, key, load.acknowledged)).toEqual([]);
    const after = await request(`${restarted.url}/readyz`);
    expect(after.status).toBe(200);
    await restarted.stop();
  }, 60_000);

  it('hands back a hung mail and a hung webhook delivery and exits 0 after the drain', async () => {
    const storage = newStorage(dialect);
    storages.push(storage);
    const peers = await startHungPeers(storage);
    try {
      const server = await ServerProcess.start(storage, { env: { ...peers.env, SHUTDOWN_DRAIN_MS: '500' } });
      await peers.holdOne(server);
      const signalledAt = Date.now();
      server.kill('SIGTERM');
      const exit = await server.exited;
      const tookMs = Date.now() - signalledAt;
      expect(exit, server.log).toEqual({ code: 0, signal: null });
      // The drain, then the workers' 3 s grace for jobs in progress; not the 90 s a send may take.
      expect(tookMs).toBeLessThan(500 + 3000 + 2000);
      expect(await peers.leases()).toEqual(peers.handedBack);
    } finally {
      await peers.close();
    }
  }, 60_000);

  it('ends at once on a second SIGTERM, whatever a worker waits on, handing the jobs back (exit 1)', async () => {
    const storage = newStorage(dialect);
    storages.push(storage);
    const peers = await startHungPeers(storage);
    try {
      const server = await ServerProcess.start(storage, {
        env: { ...peers.env, SHUTDOWN_DRAIN_MS: '60000' },
      });
      await peers.holdOne(server);
      const signalledAt = Date.now();
      server.kill('SIGTERM');
      await sleep(300);
      expect((await request(`${server.url}/readyz`)).status).toBe(503);
      server.kill('SIGTERM');
      const exit = await server.exited;
      expect(exit, server.log).toEqual({ code: 1, signal: null });
      expect(Date.now() - signalledAt).toBeLessThan(300 + 3000);
      expect(await peers.leases()).toEqual(peers.handedBack);
    } finally {
      await peers.close();
    }
  }, 60_000);

  it('finishes a long CSV export that is being read when SIGTERM comes, then exits 0', async () => {
    const storage = newStorage(dialect);
    storages.push(storage);
    const { key } = await seedBrandAndKey(storage);
    const server = await ServerProcess.start(storage, { env: { SHUTDOWN_DRAIN_MS: '1000' } });
    // 4,000 leads of 4 KB each: an export of about 18 MB, far more than the sockets' buffers hold.
    const leads = 4000;
    await createLargeLeads(server.url, key, leads, 'export');
    // A reader that stops after the first chunk, so the export waits on the socket when the signal comes.
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .get(`${server.url}/v1/exports/leads.csv`, { headers: { 'x-api-key': key }, agent: false }, resolve)
        .on('error', reject);
    });
    expect(res.statusCode).toBe(200);
    // Paused in the first chunk's handler: a chunk emitted before a later pause() would have no listener.
    const chunks: Buffer[] = [
      await new Promise<Buffer>((resolve) =>
        res.once('data', (chunk: Buffer) => {
          res.pause();
          resolve(chunk);
        }),
      ),
    ];
    server.kill('SIGTERM');
    // Past the drain: no new connections, the export still in flight.
    await sleep(2000);
    expect(await connects(server.port)).toBe(false);
    expect(server.child.exitCode).toBeNull();
    const complete = new Promise<boolean>((resolve) => {
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(true));
      res.on('error', () => resolve(false));
    });
    res.resume();
    expect(await complete).toBe(true);
    const lines = Buffer.concat(chunks).toString('utf8').trimEnd().split(/\r?\n/);
    // The header and one line a lead (no field here holds a line break).
    expect(lines.length).toBe(leads + 1);
    expect(await server.exited, server.log).toEqual({ code: 0, signal: null });
  }, 120_000);

  it('ends at the hard deadline (SHUTDOWN_DRAIN_MS + 10 s) when a request never finishes (exit 1)', async () => {
    const storage = newStorage(dialect);
    storages.push(storage);
    const { key } = await seedBrandAndKey(storage);
    const server = await ServerProcess.start(storage, { env: { SHUTDOWN_DRAIN_MS: '500' } });
    // Half a body that never gets its second half (REQUEST_TIMEOUT_MS is 30 s).
    const slow = startSlowPost(server.port, key, JSON.stringify(leadBody('stuck', 1)));
    await slow.accepted;
    const signalledAt = Date.now();
    server.kill('SIGTERM');
    const exit = await server.exited;
    const tookMs = Date.now() - signalledAt;
    expect(exit, server.log).toEqual({ code: 1, signal: null });
    expect(tookMs).toBeGreaterThanOrEqual(500 + 10_000 - 200);
    expect(tookMs).toBeLessThan(500 + 10_000 + 3000);
    expect(await inspectStorage(storage)).toMatchObject(CLEAN_STORAGE);
  }, 60_000);
});

describe('SIGTERM during a scheduled backup (SQLite)', () => {
  const storages: Storage[] = [];
  afterAll(async () => {
    for (const storage of storages) await dropStorage(storage);
  });

  it('lets the running backup finish into a whole archive, leaves nothing half made, and exits 0', async () => {
    const storage = newStorage('sqlite');
    storages.push(storage);
    const { key } = await seedBrandAndKey(storage);
    // With no archive yet, the first scheduled backup starts one interval (here a minute) after the start.
    const server = await ServerProcess.start(storage, {
      env: { SHUTDOWN_DRAIN_MS: '500', BACKUP_INTERVAL_MINUTES: '1' },
    });
    // About 12 MB of leads, so the backup (paced, to spare the server's disk) takes a while.
    await createLargeLeads(server.url, key, 3000, 'backup');
    const staging = () => fs.readdirSync(storage.dataDir).filter((name) => name.startsWith('.backup-'));
    const backupDir = path.join(storage.dataDir, 'backups');
    const inBackupDir = () => (fs.existsSync(backupDir) ? fs.readdirSync(backupDir) : []);
    // The backup has begun when its staging folder appears.
    for (const deadline = Date.now() + 90_000; !staging().length && Date.now() < deadline; ) await sleep(10);
    expect(staging(), server.log).toHaveLength(1);
    server.kill('SIGTERM');
    expect(await server.exited, server.log).toEqual({ code: 0, signal: null });
    // Whole: one archive, no staging folder, no partial archive; the archive reads to its end and holds the database.
    expect(staging()).toEqual([]);
    const archives = inBackupDir().filter((name) => name.endsWith('.tar.gz'));
    expect(inBackupDir().filter((name) => name.includes('.partial-'))).toEqual([]);
    expect(archives).toHaveLength(1);
    const listing = execFileSync('tar', ['-tzf', path.join(backupDir, archives[0] as string)], {
      encoding: 'utf8',
    });
    expect(listing).toMatch(/lead-intake\.sqlite/);
  }, 180_000);
});
