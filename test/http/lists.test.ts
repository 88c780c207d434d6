// GET /v1/leads, /v1/work-items, /v1/addresses (and /address): envelope, item shapes, states, limit, order,
// filters, brand isolation, and cursor walks that stay exact while leads arrive and change state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leadFieldsWhere } from '../../src/leads/fields.js';
import type { Status } from '../../src/leads/states.js';
import type { ApiResponse } from '../api.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';
import { PATH_TO } from '../lead-paths.js';

type Item = Record<string, unknown> & { id: string };
interface Envelope {
  data: Item[];
  limit: number;
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * The job fields the field table lists beyond spec 2.3's title and priority (src/leads/fields.ts, whose list item
 * test/domain/fields.test.ts checks against the table): a field added there is in every item, null when not sent.
 */
const ADDED_LISTED = leadFieldsWhere({ group: 'job', listed: true }).filter(
  (name) => name !== 'title' && name !== 'priority',
);
const LEAD_ITEM_KEYS = [
  'id',
  'title',
  'status',
  'priority',
  'receivedAt',
  'updatedAt',
  'source',
  'sourceFormName',
  'customer',
  'address',
  'attachmentCount',
  ...ADDED_LISTED,
];
const ADDRESS_ITEM_KEYS = [
  'id',
  'customerId',
  'street',
  'streetNumber',
  'streetNumberAddition',
  'postalCode',
  'city',
  'country',
  'createdAt',
  'updatedAt',
];
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ORIGINALS = 250;

const sorted = (values: string[]) => [...values].sort();
const addMs = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/** Resolves once the clock has moved past `iso`, so the next record gets a strictly later timestamp. */
async function afterMillisecond(iso: string): Promise<void> {
  while (Date.now() <= Date.parse(iso)) await new Promise((resolve) => setTimeout(resolve, 1));
}

/** Compares two items by (time, id) as the API orders them. */
function compareByPosition(timeField: string) {
  return (a: Item, b: Item) => {
    const byTime = Date.parse(a[timeField] as string) - Date.parse(b[timeField] as string);
    return byTime !== 0 ? byTime : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
}

describe.each(dialects())('lists on %s', (dialect) => {
  let ctx: TestContext;
  /** The leads created before any test ran, in creation order. */
  let originals: Record<string, unknown>[];

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    originals = [];
    for (let batch = 0; batch < ORIGINALS / 10; batch++) {
      originals.push(...(await Promise.all(Array.from({ length: 10 }, () => ctx.createLead()))));
    }
  });
  afterAll(async () => ctx?.close());

  async function page(url: string, key?: string): Promise<Envelope> {
    const res = await ctx.api.get(url, { key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  /** Every item of a list, following nextCursor at the largest page size. */
  async function all(path: string, query = '', key?: string): Promise<Item[]> {
    const items: Item[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 1000; pages++) {
      const cursorParam: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const body = await page(`${path}?limit=100${query}${cursorParam}`, key);
      items.push(...body.data);
      if (!body.hasMore) return items;
      cursor = body.nextCursor;
    }
    throw new Error(`${path} did not end within 1000 pages`);
  }

  async function leadInState(status: string, fields: Record<string, unknown> = {}, key?: string) {
    const lead = await ctx.createLead(fields, key);
    const id = lead.id as string;
    for (const step of PATH_TO[status as Status]) await patchStatus(id, step, key);
    return id;
  }

  async function patchStatus(id: string, status: string, key: string = ctx.keys.full) {
    const res = await ctx.api.patch(`/v1/leads/${id}`, { status }, { key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  function expectValidation(res: ApiResponse, field: string) {
    expect(res.statusCode, res.body).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body.status).toBe(422);
    expect(body.errors.map((e: { field: string }) => e.field)).toContain(field);
  }

  describe('shapes', () => {
    it('lead list: envelope is exactly {data, limit, hasMore, nextCursor}; items are spec 2.3 plus updatedAt, source and sourceFormName', async () => {
      const created = await ctx.createLead({
        phone: '+31 6 1234 5678',
        streetNumber: '7',
        postalCode: '1011 AB',
        city: 'Utrecht',
        priority: 'urgent',
      });
      const body = await page('/v1/leads?limit=3');
      expect(Object.keys(body).sort()).toEqual(['data', 'hasMore', 'limit', 'nextCursor']);
      expect(body.limit).toBe(3);
      expect(body.hasMore).toBe(true);
      expect(typeof body.nextCursor).toBe('string');
      const item = body.data[0]!;
      expect(item.id).toBe(created.id);
      expect(Object.keys(item).sort()).toEqual(sorted(LEAD_ITEM_KEYS));
      const detail = (await ctx.api.get(`/v1/leads/${created.id}`)).json();
      expect(item).toEqual({
        id: created.id,
        title: created.title,
        status: 'request',
        priority: 'urgent',
        receivedAt: created.receivedAt,
        updatedAt: created.receivedAt,
        source: 'website',
        sourceFormName: null,
        ...Object.fromEntries(ADDED_LISTED.map((name) => [name, null])),
        customer: {
          id: created.customerId,
          name: detail.customer.name,
          email: detail.customer.email,
          phone: '+31612345678',
          companyName: null,
        },
        address: {
          id: created.addressId,
          street: 'Keizersgracht',
          streetNumber: '7',
          postalCode: '1011 AB',
          city: 'Utrecht',
        },
        attachmentCount: 0,
      });
      expect(item.receivedAt).toMatch(ISO_MS);
    });

    it('work-item list: the same item shape plus scheduledAt (the time it was scheduled) and the planned visit', async () => {
      const id = await leadInState('planned');
      const detail = (await ctx.api.get(`/v1/leads/${id}`)).json();
      const body = await page('/v1/work-items?limit=1', ctx.keys['work-items:read']);
      expect(Object.keys(body).sort()).toEqual(['data', 'hasMore', 'limit', 'nextCursor']);
      const item = body.data.find((i) => i.id === id)!;
      expect(Object.keys(item).sort()).toEqual(
        sorted([...LEAD_ITEM_KEYS, 'scheduledAt', 'scheduledFor', 'durationMinutes', 'assignee']),
      );
      expect(item).toMatchObject({ scheduledFor: null, durationMinutes: null, assignee: null });
      const scheduled = detail.statusHistory.find((h: { status: string }) => h.status === 'scheduled');
      expect(item.status).toBe('planned');
      expect(item.scheduledAt).toBe(scheduled.at);
      expect(item.updatedAt).toBe(detail.statusHistory.at(-1).at);
      expect(item.scheduledAt).toMatch(ISO_MS);
    });

    it('address list and its /address alias: same envelope, same items, every address field', async () => {
      const created = await ctx.createLead({
        streetNumber: '12',
        streetNumberAddition: 'bis',
        country: 'be',
      });
      const body = await page('/v1/addresses?limit=2');
      expect(Object.keys(body).sort()).toEqual(['data', 'hasMore', 'limit', 'nextCursor']);
      const item = body.data[0]!;
      expect(Object.keys(item).sort()).toEqual(sorted(ADDRESS_ITEM_KEYS));
      expect(item).toMatchObject({
        id: created.addressId,
        customerId: created.customerId,
        street: 'Keizersgracht',
        streetNumber: '12',
        streetNumberAddition: 'bis',
        postalCode: '1015 CJ',
        city: 'Amsterdam',
        country: 'BE',
        createdAt: created.createdAt,
        updatedAt: created.createdAt,
      });
      expect(await page('/address?limit=2')).toEqual(body);
      const cursor = encodeURIComponent(body.nextCursor!);
      expect(await page(`/address?limit=2&cursor=${cursor}`)).toEqual(
        await page(`/v1/addresses?limit=2&cursor=${cursor}`),
      );
    });

    it('address lists need the full scope', async () => {
      for (const path of ['/v1/addresses', '/address']) {
        for (const scope of ['leads:read', 'leads:write', 'work-items:read'] as const) {
          const res = await ctx.api.get(path, { key: ctx.keys[scope] });
          expect(res.statusCode).toBe(403);
        }
      }
    });
  });

  describe('states', () => {
    it('the lead list serves request and quoted, the work-item list scheduled to completed, neither cancelled', async () => {
      const states = ['request', 'quoted', 'scheduled', 'planned', 'in_progress', 'completed', 'cancelled'];
      const ids: Record<string, string> = {};
      for (const status of states) ids[status] = await leadInState(status);
      const cancelledLater = await leadInState('planned');
      await patchStatus(cancelledLater, 'cancelled');

      const leads = await all('/v1/leads', '', ctx.keys['leads:read']);
      const work = await all('/v1/work-items', '', ctx.keys['work-items:read']);
      const leadIds = new Set(leads.map((i) => i.id));
      const workIds = new Set(work.map((i) => i.id));
      expect(states.filter((s) => leadIds.has(ids[s]!))).toEqual(['request', 'quoted']);
      expect(states.filter((s) => workIds.has(ids[s]!))).toEqual([
        'scheduled',
        'planned',
        'in_progress',
        'completed',
      ]);
      expect(leadIds.has(cancelledLater) || workIds.has(cancelledLater)).toBe(false);
      expect(new Set(leads.map((i) => i.status))).toEqual(new Set(['request', 'quoted']));
      expect(new Set(work.map((i) => i.status))).toEqual(
        new Set(['scheduled', 'planned', 'in_progress', 'completed']),
      );

      for (const id of [ids.cancelled!, cancelledLater]) {
        const res = await ctx.api.get(`/v1/leads/${id}`, { key: ctx.keys['leads:read'] });
        expect(res.statusCode).toBe(200);
        expect(res.json().status).toBe('cancelled');
      }
    });

    it('GET /v1/work-items/{id} reads a scheduled item and 404s for a lead never scheduled', async () => {
      const scheduled = await leadInState('scheduled');
      const res = await ctx.api.get(`/v1/work-items/${scheduled}`, { key: ctx.keys['work-items:read'] });
      expect(res.statusCode).toBe(200);
      const item = res.json();
      expect(item).toMatchObject({ id: scheduled, status: 'scheduled' });
      expect(item.scheduledAt).toBe(item.statusHistory.at(-1).at);
      expect(item).toEqual((await ctx.api.get(`/v1/leads/${scheduled}`)).json());

      for (const status of ['request', 'quoted', 'cancelled']) {
        const id = await leadInState(status);
        const missing = await ctx.api.get(`/v1/work-items/${id}`, { key: ctx.keys['work-items:read'] });
        expect(missing.statusCode).toBe(404);
        expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      const unknown = await ctx.api.get(`/v1/work-items/wrk_${'0'.repeat(26)}`, {
        key: ctx.keys['work-items:read'],
      });
      expect(unknown.statusCode).toBe(404);
    });
  });

  describe('limit', () => {
    it('defaults to 50; a short list says hasMore false and nextCursor null', async () => {
      const body = await page('/v1/leads');
      expect(body.limit).toBe(50);
      expect(body.data).toHaveLength(50);
      expect(body.hasMore).toBe(true);
      const work = await page('/v1/work-items', ctx.keys['work-items:read']);
      expect(work.limit).toBe(50);
      expect(work.data.length).toBeLessThan(50);
      expect(work.hasMore).toBe(false);
      expect(work.nextCursor).toBeNull();
      expect((await page('/v1/addresses')).limit).toBe(50);
    });

    it('values above 100 are served as 100 and the envelope says 100', async () => {
      for (const limit of [101, 1000, 1_000_000]) {
        const body = await page(`/v1/leads?limit=${limit}`);
        expect(body.limit).toBe(100);
        expect(body.data).toHaveLength(100);
        expect((await page(`/v1/addresses?limit=${limit}`)).data).toHaveLength(100);
        expect((await page(`/v1/work-items?limit=${limit}`)).limit).toBe(100);
      }
      expect((await page('/v1/leads?limit=100')).data).toHaveLength(100);
      expect((await page('/v1/leads?limit=1')).data).toHaveLength(1);
    });

    it.each(['0', '-1', '1.5', 'ten', ''])('limit=%s is a 422', async (limit) => {
      for (const path of ['/v1/leads', '/v1/work-items', '/v1/addresses']) {
        expectValidation(await ctx.api.get(`${path}?limit=${limit}`), 'limit');
      }
    });
  });

  describe('order', () => {
    it('newest first by (receivedAt, id); order=asc oldest first', async () => {
      const newest = await ctx.createLead();
      const desc = await page('/v1/leads?limit=100');
      expect(desc.data[0]!.id).toBe(newest.id);
      expect(desc.data).toEqual([...desc.data].sort(compareByPosition('receivedAt')).reverse());

      const asc = await page('/v1/leads?limit=100&order=asc');
      expect(asc.data).toEqual([...asc.data].sort(compareByPosition('receivedAt')));
      const everything = await all('/v1/leads');
      const oldest = [...everything].sort(compareByPosition('receivedAt'))[0]!;
      expect(asc.data[0]!.id).toBe(oldest.id);
      expect(everything.map((i) => i.id)).toEqual(
        (await all('/v1/leads', '&order=asc')).map((i) => i.id).reverse(),
      );
    });

    it('addresses: newest first by (createdAt, id); order=asc oldest first', async () => {
      const newest = await ctx.createLead();
      const desc = await page('/v1/addresses?limit=100');
      expect(desc.data[0]!.id).toBe(newest.addressId);
      expect(desc.data).toEqual([...desc.data].sort(compareByPosition('createdAt')).reverse());
      const asc = await page('/v1/addresses?limit=100&order=asc');
      expect(asc.data).toEqual([...asc.data].sort(compareByPosition('createdAt')));
      const oldest = (await all('/v1/addresses')).sort(compareByPosition('createdAt'))[0]!;
      expect(asc.data[0]!.id).toBe(oldest.id);
    });

    it('order, cursor and unknown parameters are validated', async () => {
      expectValidation(await ctx.api.get('/v1/leads?order=newest'), 'order');
      expectValidation(await ctx.api.get('/v1/leads?cursor=abc'), 'cursor');
      expectValidation(await ctx.api.get('/v1/work-items?cursor=l1.bm9wZQ'), 'cursor');
      expectValidation(await ctx.api.get('/v1/addresses?cursor=abc'), 'cursor');
      expectValidation(await ctx.api.get('/v1/leads?since=2026-01-01T00:00:00Z'), 'since');
    });
  });

  describe('filters', () => {
    it('receivedAfter and receivedBefore are exclusive', async () => {
      const first = await ctx.createLead();
      await afterMillisecond(first.receivedAt as string);
      const middle = await ctx.createLead();
      await afterMillisecond(middle.receivedAt as string);
      const last = await ctx.createLead();

      const between = await page(
        `/v1/leads?receivedAfter=${first.receivedAt}&receivedBefore=${last.receivedAt}`,
      );
      expect(between.data.map((i) => i.id)).toEqual([middle.id]);
      const after = await page(`/v1/leads?receivedAfter=${first.receivedAt}&order=asc`);
      expect(after.data.map((i) => i.id)).toEqual([middle.id, last.id]);
      const before = await page(`/v1/leads?receivedBefore=${middle.receivedAt}&limit=100`);
      expect(before.data[0]!.id).toBe(first.id);
      for (const item of before.data)
        expect(Date.parse(item.receivedAt as string)).toBeLessThan(Date.parse(middle.receivedAt as string));
      // Offsets other than Z name the same instant.
      const zoned = new Date(Date.parse(first.receivedAt as string) + 2 * 3_600_000)
        .toISOString()
        .replace('Z', '+02:00');
      expect(
        (await page(`/v1/leads?receivedAfter=${encodeURIComponent(zoned)}&order=asc`)).data.map((i) => i.id),
      ).toEqual([middle.id, last.id]);
    });

    it('updatedAfter is exclusive and finds items changed after the time, on both lists', async () => {
      const lead = await ctx.createLead();
      const quoted = await patchStatus(lead.id as string, 'quoted');
      const justBefore = addMs(quoted.updatedAt, -1);
      const changed = await page(`/v1/leads?updatedAfter=${justBefore}&limit=100`);
      expect(changed.data.map((i) => i.id)).toContain(lead.id);
      for (const item of changed.data)
        expect(Date.parse(item.updatedAt as string)).toBeGreaterThan(Date.parse(justBefore));
      const none = await page(`/v1/leads?updatedAfter=${quoted.updatedAt}&limit=100`);
      expect(none.data.map((i) => i.id)).not.toContain(lead.id);

      await afterMillisecond(quoted.updatedAt);
      const scheduled = await patchStatus(lead.id as string, 'scheduled');
      const work = await page(`/v1/work-items?updatedAfter=${quoted.updatedAt}`);
      expect(work.data.map((i) => i.id)).toEqual([lead.id]);
      expect((await page(`/v1/work-items?updatedAfter=${scheduled.updatedAt}`)).data).toEqual([]);
    });

    it('status takes one or several of the states the list serves', async () => {
      const quoted = await leadInState('quoted');
      const planned = await leadInState('planned');
      const inProgress = await leadInState('in_progress');

      const onlyQuoted = await all('/v1/leads', '&status=quoted');
      expect(onlyQuoted.map((i) => i.id)).toContain(quoted);
      expect(new Set(onlyQuoted.map((i) => i.status))).toEqual(new Set(['quoted']));
      const onlyRequest = await all('/v1/leads', '&status=request');
      expect(new Set(onlyRequest.map((i) => i.status))).toEqual(new Set(['request']));
      const both = await all('/v1/leads', '&status=request,quoted');
      expect(both.length).toBe(onlyQuoted.length + onlyRequest.length);
      expect(sorted(both.map((i) => i.id))).toEqual(sorted([...onlyQuoted, ...onlyRequest].map((i) => i.id)));

      const work = await all('/v1/work-items', `&status=${encodeURIComponent('planned,in_progress')}`);
      expect(work.map((i) => i.id)).toEqual(expect.arrayContaining([planned, inProgress]));
      expect(new Set(work.map((i) => i.status))).toEqual(new Set(['planned', 'in_progress']));
    });

    it('a state the list does not serve, or an unknown one, is a 422', async () => {
      for (const status of ['scheduled', 'completed', 'cancelled', 'request,planned', 'done', '', ',']) {
        expectValidation(await ctx.api.get(`/v1/leads?status=${encodeURIComponent(status)}`), 'status');
      }
      for (const status of ['request', 'quoted', 'cancelled', 'planned,quoted', 'done']) {
        expectValidation(await ctx.api.get(`/v1/work-items?status=${encodeURIComponent(status)}`), 'status');
      }
    });

    it('bad timestamps are a 422 naming the parameter', async () => {
      expectValidation(await ctx.api.get('/v1/leads?receivedAfter=yesterday'), 'receivedAfter');
      expectValidation(await ctx.api.get('/v1/leads?receivedBefore=2026-13-45T00:00:00Z'), 'receivedBefore');
      expectValidation(await ctx.api.get('/v1/work-items?updatedAfter=1700000000'), 'updatedAfter');
      const both = await ctx.api.get('/v1/leads?receivedAfter=x&updatedAfter=y');
      expectValidation(both, 'receivedAfter');
      expectValidation(both, 'updatedAfter');
    });
  });

  it('every list shows its own brand only; another brand’s ids are 404', async () => {
    const theirs = await ctx.createLead({}, ctx.keys.other);
    const theirScheduled = (await ctx.createLead({}, ctx.keys.other)).id as string;
    await patchStatus(theirScheduled, 'scheduled', ctx.keys.other);

    const ours = [
      ...(await all('/v1/leads')),
      ...(await all('/v1/work-items')),
      ...(await all('/v1/addresses')),
    ].map((i) => i.id);
    expect(ours).not.toContain(theirs.id);
    expect(ours).not.toContain(theirScheduled);
    expect(ours).not.toContain(theirs.addressId);

    expect((await all('/v1/leads', '', ctx.keys.other)).map((i) => i.id)).toEqual([theirs.id]);
    expect((await all('/v1/work-items', '', ctx.keys.other)).map((i) => i.id)).toEqual([theirScheduled]);
    expect((await all('/address', '', ctx.keys.other)).map((i) => i.id).sort()).toEqual(
      sorted([
        theirs.addressId as string,
        (await ctx.api.get(`/v1/leads/${theirScheduled}`, { key: ctx.keys.other })).json().addressId,
      ]),
    );

    expect((await ctx.api.get(`/v1/leads/${theirs.id}`)).statusCode).toBe(404);
    expect((await ctx.api.get(`/v1/work-items/${theirScheduled}`)).statusCode).toBe(404);
    expect((await ctx.api.get(`/v1/leads/${originals[0]!.id}`, { key: ctx.keys.other })).statusCode).toBe(
      404,
    );
  });

  describe('cursor walks while leads arrive and change', () => {
    /**
     * Walks a list at limit=7. Before each next page is requested, and concurrently with that request,
     * another lead is created and `change` runs. Returns every id seen, in order.
     */
    async function walk(url: string, key: string, change: (step: number) => Promise<unknown>) {
      const seen: Item[] = [];
      let cursor: string | null = null;
      for (let step = 0; step < 500; step++) {
        const cursorParam: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const [res] = await Promise.all([
          ctx.api.get(`${url}${cursorParam}`, { key }),
          ctx.createLead(),
          change(step),
        ]);
        expect(res.statusCode, res.body).toBe(200);
        const body: Envelope = res.json();
        expect(body.limit).toBe(7);
        expect(body.data.length).toBeLessThanOrEqual(7);
        seen.push(...body.data);
        if (!body.hasMore) {
          expect(body.nextCursor).toBeNull();
          return seen;
        }
        expect(body.data).toHaveLength(7);
        cursor = body.nextCursor;
      }
      throw new Error(`${url} did not end within 500 pages`);
    }

    function expectEachOnce(seen: Item[], expected: string[]) {
      const counts = new Map<string, number>();
      for (const item of seen) counts.set(item.id, (counts.get(item.id) ?? 0) + 1);
      expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
      expect(expected.filter((id) => counts.get(id) !== 1)).toEqual([]);
    }

    /** Quotes original leads still in request as the walk goes: they change but keep their place. */
    function quoteSome(stillRequest: string[]) {
      return async (step: number) => {
        if (step % 2 === 0 && stillRequest.length) await patchStatus(stillRequest.shift()!, 'quoted');
      };
    }

    /** Schedules and cancels leads created during the walk: they leave the list while it is being read. */
    async function removeNewLeads(since: string) {
      const fresh = (await page(`/v1/leads?receivedAfter=${since}&limit=2&status=request`)).data;
      await Promise.all(fresh.map((item, i) => patchStatus(item.id, i % 2 ? 'cancelled' : 'scheduled')));
    }

    it.each(['desc', 'asc'] as const)(
      'leads, order=%s: every original lead exactly once, none repeated',
      async (order) => {
        const originalIds = originals.map((l) => l.id as string);
        const requestIds = (await all('/v1/leads', '&status=request')).map((i) => i.id);
        const stillRequest = originalIds.filter((id) => requestIds.includes(id));
        const start = new Date().toISOString();
        const quote = quoteSome(stillRequest);
        const seen = await walk(`/v1/leads?limit=7&order=${order}`, ctx.keys['leads:read'], async (step) => {
          await quote(step);
          if (step % 3 === 1) await removeNewLeads(start);
        });
        expectEachOnce(seen, originalIds);
        const inOrder = [...seen].sort(compareByPosition('receivedAt'));
        expect(seen).toEqual(order === 'asc' ? inOrder : inOrder.reverse());
        expect(new Set(seen.map((i) => i.status))).toEqual(new Set(['request', 'quoted']));
      },
    );

    it.each([
      ['/v1/addresses', 'desc'],
      ['/address', 'asc'],
    ] as const)(
      'addresses (%s, order=%s): every original address exactly once, none repeated',
      async (path, order) => {
        const originalAddresses = originals.map((l) => l.addressId as string);
        expect(new Set(originalAddresses).size).toBe(ORIGINALS);
        const seen = await walk(`${path}?limit=7&order=${order}`, ctx.keys.full, async () => undefined);
        expectEachOnce(seen, originalAddresses);
        const inOrder = [...seen].sort(compareByPosition('createdAt'));
        expect(seen).toEqual(order === 'asc' ? inOrder : inOrder.reverse());
      },
    );
  });
});
