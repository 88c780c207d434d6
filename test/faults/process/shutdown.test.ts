// Graceful shutdown: SIGTERM under load finishes what is in flight, refuses what is new, closes the database
// and exits within 10 s, without losing an acknowledged lead.
import fs from 'node:fs';
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

  it('finishes in-flight requests, refuses new ones, closes the database and exits 0 within 10 s', async () => {
    const storage = newStorage(dialect);
    storages.push(storage);
    const { key } = await seedBrandAndKey(storage);
    const server = await ServerProcess.start(storage);
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

    // New connections are refused (once the signal has been handled) while the in-flight request is open.
    let refused = false;
    for (const deadline = Date.now() + 5000; !refused && Date.now() < deadline; await sleep(50)) {
      refused = !(await connects(server.port));
    }
    expect(refused).toBe(true);
    const reply = await slow.finish();
    expect(reply).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
    const slowId = /"id":"(wrk_[0-9a-z]{26})"/.exec(reply)?.[1];
    expect(slowId).toBeTruthy();

    const exit = await server.exited;
    const tookMs = Date.now() - signalledAt;
    await load.stop();
    expect(exit, server.log).toEqual({ code: 0, signal: null });
    expect(tookMs).toBeLessThan(10_000);

    // Requests that reached the closing server were told to go elsewhere, in our error shape.
    const answered = load.outcomes.filter((o) => o.status !== 0);
    for (const o of answered) expect([201, 503]).toContain(o.status);
    for (const o of answered.filter((a) => a.status === 503)) {
      expect(o.contentType).toMatch(/^application\/problem\+json/);
      expect(Number(o.retryAfter)).toBeGreaterThan(0);
    }
    expect(load.acknowledged.size).toBeGreaterThanOrEqual(acknowledgedAtSignal);

    // Closed cleanly: SQLite folded its write-ahead log back into the database file.
    if (dialect === 'sqlite') {
      const wal = path.join(storage.dataDir, 'lead-intake.sqlite-wal');
      expect(fs.existsSync(wal) ? fs.statSync(wal).size : 0).toBe(0);
    }
    expect(await inspectStorage(storage)).toMatchObject(CLEAN_STORAGE);

    const restarted = await ServerProcess.start(storage);
    load.acknowledged.set(slowId!, sent);
    expect(await findLostOrWrong(restarted.url, key, load.acknowledged)).toEqual([]);
    const after = await request(`${restarted.url}/readyz`);
    expect(after.status).toBe(200);
    await restarted.stop();
  }, 60_000);
});
