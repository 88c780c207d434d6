// The state table of the contract, through PATCH /v1/leads/{id}: every allowed change, every refused one,
// bad bodies, other brands, and parallel changes of one lead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../api.js';
import { addUser } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';
import { PATH_TO, STATUSES } from '../lead-paths.js';

const STATES = STATUSES;
type State = (typeof STATES)[number];

// Written out from the contract ("States"), not imported from the code under test.
const ALLOWED: [State, State][] = [
  ['request', 'quoted'],
  ['request', 'scheduled'],
  ['request', 'cancelled'],
  ['quoted', 'scheduled'],
  ['quoted', 'cancelled'],
  ['scheduled', 'planned'],
  ['scheduled', 'cancelled'],
  ['planned', 'in_progress'],
  ['planned', 'cancelled'],
  ['in_progress', 'completed'],
  ['in_progress', 'cancelled'],
  ['cancelled', 'request'],
];
const isAllowed = (from: State, to: State) => ALLOWED.some(([f, t]) => f === from && t === to);
const REFUSED: [State, State][] = STATES.flatMap((from) =>
  STATES.filter((to) => !isAllowed(from, to)).map((to): [State, State] => [from, to]),
);

interface History {
  status: State;
  at: string;
  actor: { type: string; id: string; name: string } | null;
  reason: string | null;
}

describe.each(dialects())('lead states on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => ctx?.close());

  const read = (id: string) => ctx.api.read(`/v1/leads/${id}`, { key: ctx.keys['leads:read'] });

  async function leadIn(state: State): Promise<string> {
    const id = (await ctx.createLead()).id as string;
    for (const step of PATH_TO[state]) {
      const res = await ctx.api.patch(`/v1/leads/${id}`, { status: step });
      expect(res.statusCode, res.body).toBe(200);
    }
    return id;
  }

  function expectRefusal(res: ApiResponse, current: State) {
    expect(res.statusCode, res.body).toBe(409);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body).toMatchObject({ status: 409, currentStatus: current });
    expect(body.type).toMatch(/^https:\/\/lead-intake\.dev\/errors\//);
    expect(body.detail).toContain(`"${current}"`);
    expect(typeof body.requestId).toBe('string');
  }

  it.each(ALLOWED)(
    '%s → %s is allowed: 200 with the single-lead read, history grows by one',
    async (from, to) => {
      const id = await leadIn(from);
      const before = await read(id);
      const res = await ctx.api.patch(`/v1/leads/${id}`, { status: to });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body).toEqual(await read(id));
      expect(body.status).toBe(to);

      const history: History[] = body.statusHistory;
      expect(history.slice(0, -1)).toEqual(before.statusHistory);
      const added = history.at(-1)!;
      expect(Object.keys(added).sort()).toEqual(['actor', 'at', 'reason', 'status']);
      expect(added.status).toBe(to);
      // Who made the change: the key that sent the PATCH. The API gives no reason, also not for a cancellation.
      expect(added.actor).toEqual({ type: 'key', id: ctx.keyIds.full, name: 'key full' });
      expect(added.reason).toBeNull();
      expect(Date.parse(added.at)).toBeGreaterThanOrEqual(Date.parse(before.statusHistory.at(-1).at));
      expect(body.updatedAt).toBe(added.at);
      expect(body.receivedAt).toBe(before.receivedAt);
      // scheduledAt is the moment the lead became a work item, and stays that.
      expect(body.scheduledAt).toBe(to === 'scheduled' ? added.at : before.scheduledAt);
    },
  );

  it.each(REFUSED)('%s → %s is refused: 409 naming the current state, nothing changes', async (from, to) => {
    const id = await leadIn(from);
    const before = await read(id);
    expectRefusal(await ctx.api.patch(`/v1/leads/${id}`, { status: to }), from);
    expect(await read(id)).toEqual(before);
  });

  it('the whole way: request → quoted → scheduled → planned → in_progress → completed, history oldest first', async () => {
    const created = await ctx.createLead();
    const id = created.id as string;
    const path: State[] = ['quoted', 'scheduled', 'planned', 'in_progress', 'completed'];
    for (const status of path)
      expect((await ctx.api.patch(`/v1/leads/${id}`, { status })).statusCode).toBe(200);
    const lead = await read(id);
    expect(lead.status).toBe('completed');
    const history: History[] = lead.statusHistory;
    expect(history.map((h) => h.status)).toEqual(['request', ...path]);
    expect(history[0]!.at).toBe(created.receivedAt);
    const times = history.map((h) => Date.parse(h.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(lead.scheduledAt).toBe(history[2]!.at);
  });

  it('reopening a cancelled job: back to request with its planning cleared, listed as a lead again, one event', async () => {
    const ann = await addUser(ctx.app, ctx.brandId, `ann-${dialect}@example.com`, 'member');
    const id = (await ctx.createLead({ title: 'Cancelled by mistake' })).id as string;
    const planned = await ctx.api.patch(`/v1/leads/${id}`, {
      status: 'scheduled',
      scheduledFor: '2026-12-01T08:00:00Z',
      durationMinutes: 90,
      assigneeId: ann.id,
    });
    expect(planned.statusCode, planned.body).toBe(200);
    expect((await ctx.api.patch(`/v1/leads/${id}`, { status: 'cancelled' })).statusCode).toBe(200);
    // Cancelled keeps what was planned, and the work-item read still serves it.
    const cancelled = await read(id);
    expect(cancelled).toMatchObject({ status: 'cancelled', durationMinutes: 90, assignee: { id: ann.id } });
    const events = async () =>
      (
        (await ctx.api.get('/v1/events?type=lead.status_changed&limit=100')).json().data as {
          data: { lead: Record<string, unknown>; from: string; to: string };
        }[]
      ).filter((e) => e.data.lead.id === id);
    const eventsBefore = (await events()).length;

    const res = await ctx.api.patch(`/v1/leads/${id}`, { status: 'request' });
    expect(res.statusCode, res.body).toBe(200);
    const lead = res.json();
    expect(lead).toEqual(await read(id));
    expect(lead).toMatchObject({
      status: 'request',
      scheduledAt: null,
      scheduledFor: null,
      durationMinutes: null,
      assignee: null,
    });
    expect(lead.statusHistory.map((h: History) => h.status)).toEqual([
      'request',
      'scheduled',
      'cancelled',
      'request',
    ]);
    expect(lead.statusHistory.at(-1)).toMatchObject({
      actor: { type: 'key', id: ctx.keyIds.full, name: 'key full' },
      reason: null,
    });
    const latest = await events();
    expect(latest).toHaveLength(eventsBefore + 1);
    expect(latest[0]!.data).toMatchObject({ from: 'cancelled', to: 'request', lead: { id, assignee: null } });

    // A lead again: in the leads list, not among the work items, nor readable as one.
    const leads = (await ctx.api.get('/v1/leads?limit=100', { key: ctx.keys['leads:read'] })).json().data;
    expect(leads.map((l: { id: string }) => l.id)).toContain(id);
    const work = (await ctx.api.get('/v1/work-items?limit=100', { key: ctx.keys['work-items:read'] })).json();
    expect(work.data.map((l: { id: string }) => l.id)).not.toContain(id);
    const asWork = await ctx.api.get(`/v1/work-items/${id}`, { key: ctx.keys['work-items:read'] });
    expect(asWork.statusCode).toBe(404);

    // Reopened once: a second reopen is a change the table does not allow.
    expectRefusal(await ctx.api.patch(`/v1/leads/${id}`, { status: 'request' }), 'request');
    // Reopening with planning fields is refused as planning a cancelled lead: nothing changes.
    const again = await leadIn('cancelled');
    const before = await read(again);
    const withPlan = await ctx.api.patch(`/v1/leads/${again}`, {
      status: 'request',
      scheduledFor: '2026-12-01T08:00:00Z',
    });
    expect(withPlan.statusCode, withPlan.body).toBe(409);
    expect(withPlan.json()).toMatchObject({ currentStatus: 'cancelled' });
    expect(withPlan.json().detail).toMatch(/Reopen it first/);
    expect(await read(again)).toEqual(before);
    // And it can be scheduled anew, with a new scheduledAt.
    const rescheduled = await ctx.api.patch(`/v1/leads/${id}`, { status: 'scheduled' });
    expect(rescheduled.statusCode).toBe(200);
    expect(rescheduled.json().scheduledAt).toBe(rescheduled.json().statusHistory.at(-1).at);
  });

  it.each([
    [{ status: 'done' }, 'status'],
    [{ status: 'Quoted' }, 'status'],
    [{ status: 3 }, 'status'],
    [{ status: null }, 'status'],
    [{}, 'status'],
    [{ status: 'quoted', note: 'call first' }, 'note'],
    [{ state: 'quoted' }, 'state'],
  ])('body %j is a 422 naming %s, nothing changes', async (payload, field) => {
    const id = await leadIn('request');
    const before = await read(id);
    const res = await ctx.api.patch(`/v1/leads/${id}`, payload);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await read(id)).toEqual(before);
  });

  it('a body that is not an object is a 422', async () => {
    const id = await leadIn('request');
    for (const payload of [['quoted'], 'quoted', 42]) {
      expect((await ctx.api.patch(`/v1/leads/${id}`, payload)).statusCode).toBe(422);
    }
    expect((await read(id)).statusHistory).toHaveLength(1);
  });

  it('another brand’s id, or an unknown id, is a 404 and changes nothing', async () => {
    const ours = await leadIn('request');
    const res = await ctx.api.patch(`/v1/leads/${ours}`, { status: 'quoted' }, { key: ctx.keys.other });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await read(ours)).status).toBe('request');

    const theirs = (await ctx.createLead({}, ctx.keys.other)).id as string;
    expect((await ctx.api.patch(`/v1/leads/${theirs}`, { status: 'quoted' })).statusCode).toBe(404);
    expect((await ctx.api.patch(`/v1/leads/wrk_${'0'.repeat(26)}`, { status: 'quoted' })).statusCode).toBe(
      404,
    );
  });

  it('needs the full scope', async () => {
    const id = await leadIn('request');
    for (const scope of ['leads:read', 'leads:write', 'work-items:read'] as const) {
      expect(
        (await ctx.api.patch(`/v1/leads/${id}`, { status: 'quoted' }, { key: ctx.keys[scope] })).statusCode,
      ).toBe(403);
    }
    expect((await read(id)).status).toBe('request');
  });

  describe('parallel changes of one lead', () => {
    it.each([2, 10])('%i parallel changes to the same state: exactly one 200, the rest 409', async (n) => {
      const id = await leadIn('request');
      const results = await Promise.all(
        Array.from({ length: n }, () => ctx.api.patch(`/v1/leads/${id}`, { status: 'scheduled' })),
      );
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, ...Array(n - 1).fill(409)]);
      for (const res of results.filter((r) => r.statusCode === 409)) expectRefusal(res, 'scheduled');
      const lead = await read(id);
      expect(lead.statusHistory.map((h: History) => h.status)).toEqual(['request', 'scheduled']);
    });

    // PATCH names only the target state, so two changes that the table allows one after the other (request →
    // quoted, then quoted → scheduled) may both succeed. What must hold is that the outcome is some serial order
    // of the changes that succeeded: no two changes from the same state, no lost history entry.
    it.each([
      [['quoted', 'scheduled']],
      [
        [
          'quoted',
          'scheduled',
          'cancelled',
          'quoted',
          'scheduled',
          'cancelled',
          'quoted',
          'planned',
          'completed',
          'scheduled',
        ],
      ],
    ] as [State[]][])(
      'parallel changes to %j end as a serial order of the ones that succeeded',
      async (targets) => {
        const id = await leadIn('request');
        const results = await Promise.all(
          targets.map((status) => ctx.api.patch(`/v1/leads/${id}`, { status })),
        );
        const lead = await read(id);
        const history: State[] = lead.statusHistory.map((h: History) => h.status);
        const succeeded = targets.filter((_, i) => results[i]!.statusCode === 200);
        expect(results.every((r) => r.statusCode === 200 || r.statusCode === 409)).toBe(true);
        expect(succeeded.length).toBeGreaterThanOrEqual(1);
        expect(history).toHaveLength(succeeded.length + 1);
        expect(history[0]).toBe('request');
        expect(sortStates(history.slice(1))).toEqual(sortStates(succeeded));
        for (let i = 1; i < history.length; i++) expect(isAllowed(history[i - 1]!, history[i]!)).toBe(true);
        expect(lead.status).toBe(history.at(-1));
        for (const res of results.filter((r) => r.statusCode === 409)) {
          expect(history).toContain(res.json().currentStatus);
        }
        // Each success answers with the lead as that change left it, history and status in agreement.
        results.forEach((res, i) => {
          if (res.statusCode !== 200) return;
          const body = res.json();
          expect(body.status).toBe(targets[i]);
          expect(body.statusHistory.at(-1).status).toBe(targets[i]);
          expect(history.slice(0, body.statusHistory.length)).toEqual(
            body.statusHistory.map((h: History) => h.status),
          );
        });
      },
    );
  });
});

function sortStates(states: State[]): State[] {
  return [...states].sort();
}
