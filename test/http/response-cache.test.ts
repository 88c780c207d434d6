// Reused list and read responses: never stale, never another brand's, bounded, and off where it cannot be safe.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/platform/db/database.js';
import { ResponseCache } from '../../src/platform/http/response-cache.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';

describe.each(dialects())('reused responses on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => ctx?.close());

  const cache = () => ctx.app.deps.responses;

  it('serves a repeated read again only while nothing has changed, byte for byte', async () => {
    const lead = await ctx.createLead({ title: 'Cached once' });
    const first = await ctx.api.get('/v1/leads?limit=5');
    const hits = cache().hits;
    const second = await ctx.api.get('/v1/leads?limit=5');
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    // Reuse only where the database can say cheaply that nothing changed: SQLite, not PostgreSQL.
    expect(cache().hits - hits).toBe(dialect === 'sqlite' ? 1 : 0);
    expect(second.json().data[0].id).toBe(lead.id);
  });

  it('shows a new lead, a state change and a new work item on the very next read', async () => {
    await ctx.api.get('/v1/leads?limit=5');
    await ctx.api.get('/v1/work-items?limit=5');
    const lead = await ctx.createLead({ title: 'Arrives after the cached page' });
    expect((await ctx.api.get('/v1/leads?limit=5')).json().data[0].id).toBe(lead.id);
    const detail = await ctx.api.get(`/v1/leads/${lead.id}`);
    expect(detail.json().status).toBe('request');

    await ctx.setStatus(lead.id as string, 'scheduled');
    expect((await ctx.api.get(`/v1/leads/${lead.id}`)).json().status).toBe('scheduled');
    expect(
      (await ctx.api.get('/v1/leads?limit=5')).json().data.map((l: { id: string }) => l.id),
    ).not.toContain(lead.id);
    expect((await ctx.api.get('/v1/work-items?limit=5')).json().data[0].id).toBe(lead.id);
    expect((await ctx.api.get(`/v1/work-items/${lead.id}`)).json().status).toBe('scheduled');
  });

  it("never serves one brand's cached page or lead to another brand's key", async () => {
    const ours = await ctx.createLead({ title: 'Only for brand A' });
    const url = '/v1/leads?limit=3';
    const mine = await ctx.api.get(url);
    expect(mine.json().data[0].id).toBe(ours.id);
    const theirs = await ctx.api.get(url, { key: ctx.keys.other });
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().data.map((l: { id: string }) => l.id)).not.toContain(ours.id);
    await ctx.api.get(`/v1/leads/${ours.id}`);
    expect((await ctx.api.get(`/v1/leads/${ours.id}`, { key: ctx.keys.other })).statusCode).toBe(404);
  });

  it('still checks the key, its scope and the query on a cached URL', async () => {
    await ctx.api.get('/v1/leads?limit=2');
    expect((await ctx.api.get('/v1/leads?limit=2', { key: ctx.keys.revoked })).statusCode).toBe(401);
    expect((await ctx.api.get('/v1/leads?limit=2', { key: ctx.keys['work-items:read'] })).statusCode).toBe(
      403,
    );
    expect((await ctx.api.get('/v1/leads?limit=2&order=sideways')).statusCode).toBe(422);
  });
});

describe('reused responses on a SQLite file written by another process', () => {
  let ctx: TestContext;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-intake-cache-'));
    ctx = await createTestContext('sqlite', {
      database: { dialect: 'sqlite', file: path.join(dir, 'lead-intake.db') },
    });
  });
  afterAll(async () => {
    await ctx?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sees a commit made through another connection on the next read', async () => {
    const lead = await ctx.createLead({ title: 'Before the other process' });
    expect((await ctx.api.get(`/v1/leads/${lead.id}`)).json().title).toBe('Before the other process');
    expect((await ctx.api.get('/v1/leads?limit=1')).json().data[0].title).toBe('Before the other process');

    const other = new SQLite(path.join(dir, 'lead-intake.db'));
    other.prepare('update leads set title = ? where id = ?').run('Changed by the other process', lead.id);
    other.close();

    expect((await ctx.api.get(`/v1/leads/${lead.id}`)).json().title).toBe('Changed by the other process');
    expect((await ctx.api.get('/v1/leads?limit=1')).json().data[0].title).toBe(
      'Changed by the other process',
    );
  });
});

describe('ResponseCache', () => {
  function fakeDatabase() {
    const state = { version: 'v1' as string | undefined, reads: 0 };
    const database = { version: () => state.version } as unknown as Database;
    return { state, database };
  }

  async function server(cache: ResponseCache, state: { reads: number }) {
    const app = Fastify();
    app.get('/item/:n', async (request, reply) => {
      const { n } = request.params as { n: string };
      return cache.send(reply, n, async () => {
        state.reads++;
        return { n, padding: 'x'.repeat(1000) };
      });
    });
    await app.ready();
    return app;
  }

  it('reads again when the version changes, or is unknown (an open transaction)', async () => {
    const { state, database } = fakeDatabase();
    const cache = new ResponseCache(database, 1 << 20);
    const app = await server(cache, state);
    await app.inject('/item/1');
    await app.inject('/item/1');
    expect(state.reads).toBe(1);
    state.version = 'v2';
    await app.inject('/item/1');
    expect(state.reads).toBe(2);
    state.version = undefined;
    await app.inject('/item/1');
    await app.inject('/item/1');
    expect(state.reads).toBe(4);
    await app.close();
  });

  it('keeps no more than its byte budget, dropping the least recently used first', async () => {
    const { state, database } = fakeDatabase();
    const cache = new ResponseCache(database, 5000);
    const app = await server(cache, state);
    for (const n of [1, 2, 3, 4]) await app.inject(`/item/${n}`);
    // Each body is a little over 1,000 bytes: four fit in 5,000.
    expect(cache.size).toBe(4);
    await app.inject('/item/1');
    await app.inject('/item/5');
    expect(cache.size).toBe(4);
    const reads = state.reads;
    await app.inject('/item/1');
    expect(state.reads).toBe(reads);
    await app.inject('/item/2');
    expect(state.reads).toBe(reads + 1);
    await app.close();
  });

  it('is off with a budget of 0', async () => {
    const { state, database } = fakeDatabase();
    const cache = new ResponseCache(database, 0);
    const app = await server(cache, state);
    await app.inject('/item/1');
    await app.inject('/item/1');
    expect(state.reads).toBe(2);
    expect(cache.size).toBe(0);
    await app.close();
  });
});
