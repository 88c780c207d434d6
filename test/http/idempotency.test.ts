import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_TTL_MS,
  pruneIdempotencyKeys,
  requestFingerprint,
} from '../../src/platform/db/idempotency.js';
import type { ApiClient } from '../api.js';
import { dialects, validLead } from '../helpers.js';
import { useTestContext } from '../test-context.js';

describe.each(dialects())('Idempotency-Key on POST /v1/leads on %s', (dialect) => {
  const ctx = useTestContext(dialect);
  /** Sends the leads:write key. */
  let writer: ApiClient;
  beforeAll(async () => {
    writer = ctx.api.as(ctx.keys['leads:write']);
  });

  let counter = 0;
  const newKey = () => `key-${dialect}-${Date.now()}-${++counter}`;

  const countLeads = async (title: string) =>
    Number(
      (
        await ctx.app.deps.database.db
          .selectFrom('leads')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('title', '=', title)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('replays the first response for the same key and body, and creates nothing more', async () => {
    const key = newKey();
    const body = validLead({ title: `Idempotent ${key}` });
    const first = await writer.post('/v1/leads', body, { idempotencyKey: key });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await writer.post('/v1/leads', body, { idempotencyKey: key });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(again.body).toBe(first.body);
    expect(again.headers.location).toBe(first.headers.location);
    expect(await countLeads(`Idempotent ${key}`)).toBe(1);
    const events = await ctx.app.deps.database.db
      .selectFrom('events')
      .select('id')
      .where('data', 'like', `%${first.json().id}%`)
      .execute();
    expect(events).toHaveLength(1);
  });

  it('treats a body with the same fields in another order as the same request', async () => {
    const key = newKey();
    const body = validLead({ title: `Reordered ${key}` });
    const reversed = Object.fromEntries(Object.entries(body).reverse());
    expect(JSON.stringify(reversed)).not.toBe(JSON.stringify(body));
    const first = await writer.post('/v1/leads', body, { idempotencyKey: key });
    const again = await writer.post('/v1/leads', reversed, { idempotencyKey: key });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(first.json().id);
  });

  it('refuses the same key with a different body: 422, nothing created', async () => {
    const key = newKey();
    await writer.post('/v1/leads', validLead({ title: `First ${key}` }), { idempotencyKey: key });
    const other = await writer.post('/v1/leads', validLead({ title: `Second ${key}` }), {
      idempotencyKey: key,
    });
    expect(other.statusCode).toBe(422);
    expect(other.headers['content-type']).toContain('application/problem+json');
    expect(other.json().errors[0].field).toBe('Idempotency-Key');
    expect(other.json().detail).toMatch(/different request body/);
    expect(await countLeads(`Second ${key}`)).toBe(0);
  });

  it('keys are per API key: another key with the same Idempotency-Key creates its own lead', async () => {
    const key = newKey();
    const body = validLead({ title: `Per key ${key}` });
    const mine = await writer.post('/v1/leads', body, { idempotencyKey: key, key: ctx.keys['leads:write'] });
    const theirs = await writer.post('/v1/leads', body, { idempotencyKey: key, key: ctx.keys.full });
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.json().id).not.toBe(mine.json().id);
  });

  it('answers 409 while a request with the same key is still in flight', async () => {
    const key = newKey();
    const body = validLead({ title: `In flight ${key}` });
    await ctx.app.deps.database.db
      .insertInto('idempotency_keys')
      .values({
        key_id: ctx.keyIds['leads:write']!,
        idempotency_key: key,
        fingerprint: requestFingerprint(body),
        state: 'in_flight',
        claim_token: 'someone-else',
        response_status: null,
        response_body: null,
        created_at: Date.now(),
      })
      .execute();
    const res = await writer.post('/v1/leads', body, { idempotencyKey: key });
    expect(res.statusCode).toBe(409);
    expect(res.json().type).toBe('https://lead-intake.dev/errors/conflict');
    expect(res.json().detail).toMatch(/still being processed/);
    expect(await countLeads(`In flight ${key}`)).toBe(0);
  });

  it('takes over a claim left in flight by a request that died long ago', async () => {
    const key = newKey();
    const body = validLead({ title: `Abandoned ${key}` });
    await ctx.app.deps.database.db
      .insertInto('idempotency_keys')
      .values({
        key_id: ctx.keyIds['leads:write']!,
        idempotency_key: key,
        fingerprint: requestFingerprint(body),
        state: 'in_flight',
        claim_token: 'dead-process',
        response_status: null,
        response_body: null,
        created_at: Date.now() - 5 * 60_000,
      })
      .execute();
    const res = await writer.post('/v1/leads', body, { idempotencyKey: key });
    expect(res.statusCode).toBe(201);
    expect(await countLeads(`Abandoned ${key}`)).toBe(1);
  });

  it('of many concurrent requests with one key, exactly one creates the lead', async () => {
    const key = newKey();
    const body = validLead({ title: `Race ${key}` });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => writer.post('/v1/leads', body, { idempotencyKey: key })),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const created = results.filter((r) => r.statusCode === 201 && !r.headers['idempotent-replayed']);
    expect(created).toHaveLength(1);
    expect(await countLeads(`Race ${key}`)).toBe(1);
    const after = await writer.post('/v1/leads', body, { idempotencyKey: key });
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.json().id).toBe(created[0]!.json().id);
  });

  it('releases the key when the first attempt fails, so a retry succeeds', async () => {
    const key = newKey();
    const title = `Boom ${key}`;
    const body = validLead({ title });
    // A real database failure inside the lead's transaction.
    if (dialect === 'sqlite') {
      await sql
        .raw(
          `create trigger fail_lead before insert on leads when new.title = '${title}' begin select raise(abort, 'boom'); end`,
        )
        .execute(ctx.app.deps.database.db);
    } else {
      await sql
        .raw(`alter table leads add constraint fail_lead check (title <> '${title}')`)
        .execute(ctx.app.deps.database.db);
    }
    const failed = await writer.post('/v1/leads', body, { idempotencyKey: key });
    expect(failed.statusCode).toBe(500);
    expect(await countLeads(title)).toBe(0);
    const row = await ctx.app.deps.database.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    expect(row).toBeUndefined();

    await sql
      .raw(dialect === 'sqlite' ? 'drop trigger fail_lead' : 'alter table leads drop constraint fail_lead')
      .execute(ctx.app.deps.database.db);
    const retried = await writer.post('/v1/leads', body, { idempotencyKey: key });
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(await countLeads(title)).toBe(1);
  });

  it('stores nothing for a request that fails validation: the key stays free', async () => {
    const key = newKey();
    const bad = await writer.post('/v1/leads', { title: 'no address' }, { idempotencyKey: key });
    expect(bad.statusCode).toBe(422);
    const good = await writer.post('/v1/leads', validLead({ title: `After 422 ${key}` }), {
      idempotencyKey: key,
    });
    expect(good.statusCode).toBe(201);
    expect(good.headers['idempotent-replayed']).toBeUndefined();
  });

  it('rejects a bad Idempotency-Key with 400 and stores nothing', async () => {
    for (const value of ['x'.repeat(256), 'caf\u00e9', '   ']) {
      const title = `Bad key ${newKey()}`;
      const res = await writer.post('/v1/leads', validLead({ title }), {
        idempotencyKey: Buffer.from(value, 'latin1').toString('latin1'),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatch(/Idempotency-Key must be .*1 to 255 printable ASCII/);
      expect(await countLeads(title)).toBe(0);
    }
    const longest = await writer.post('/v1/leads', validLead(), { idempotencyKey: 'k'.repeat(255) });
    expect(longest.statusCode).toBe(201);
  });

  it('ignores keys older than 24 hours and prunes them', async () => {
    const key = newKey();
    await writer.post('/v1/leads', validLead({ title: `Old ${key}` }), { idempotencyKey: key });
    await ctx.app.deps.database.db
      .updateTable('idempotency_keys')
      .set({ created_at: Date.now() - IDEMPOTENCY_TTL_MS - 1000 })
      .where('idempotency_key', '=', key)
      .execute();
    const reused = await writer.post('/v1/leads', validLead({ title: `New ${key}` }), {
      idempotencyKey: key,
    });
    expect(reused.statusCode).toBe(201);
    expect(reused.headers['idempotent-replayed']).toBeUndefined();

    const stale = newKey();
    await writer.post('/v1/leads', validLead(), { idempotencyKey: stale });
    await ctx.app.deps.database.db
      .updateTable('idempotency_keys')
      .set({ created_at: Date.now() - IDEMPOTENCY_TTL_MS - 1000 })
      .where('idempotency_key', '=', stale)
      .execute();
    expect(await pruneIdempotencyKeys(ctx.app.deps.database)).toBeGreaterThanOrEqual(1);
    const left = await ctx.app.deps.database.db
      .selectFrom('idempotency_keys')
      .select('idempotency_key')
      .where('idempotency_key', 'in', [key, stale])
      .execute();
    expect(left.map((r) => r.idempotency_key)).toEqual([key]);
  });
});
