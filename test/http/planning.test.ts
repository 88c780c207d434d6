// Planning the visit through PATCH /v1/leads/{id}: scheduledFor, durationMinutes and assigneeId with or without a
// state change, the refused cases, lead.updated, the work items' fields and the list's planning filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../dashboard/helpers.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';

describe.each(dialects())('planning visits on %s', (dialect) => {
  let ctx: TestContext;
  let ann: { id: string; email: string };
  let bob: { id: string; email: string };
  let stranger: { id: string };
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    ann = await addUser(ctx.app, ctx.brandId, 'ann@example.com', 'member');
    await ctx.app.deps.database.db
      .updateTable('users')
      .set({ name: 'Ann de Vries' })
      .where('id', '=', ann.id)
      .execute();
    bob = await addUser(ctx.app, ctx.brandId, 'bob@example.com', 'member');
    stranger = await addUser(ctx.app, ctx.otherBrandId, 'other@example.com');
  });
  afterAll(async () => ctx?.close());

  const events = async (type: string) =>
    (await ctx.api.get(`/v1/events?type=${type}&limit=100`)).json().data as {
      type: string;
      data: { lead: Record<string, unknown>; changed?: string[]; from?: string; to?: string };
    }[];
  const fieldsOf = (res: { json(): { errors?: { field: string }[] } }) =>
    (res.json().errors ?? []).map((e) => e.field);

  async function leadIn(...steps: string[]): Promise<string> {
    const id = (await ctx.createLead()).id as string;
    for (const step of steps) await ctx.setStatus(id, step);
    return id;
  }

  it('moving to scheduled with the plan: stored, read back on the lead, the work item and the list, one status_changed event', async () => {
    const id = await leadIn();
    const res = await ctx.api.patch(`/v1/leads/${id}`, {
      status: 'scheduled',
      scheduledFor: '2026-11-24T09:00:00+01:00',
      durationMinutes: 90,
      assigneeId: ann.id,
    });
    expect(res.statusCode, res.body).toBe(200);
    const expected = {
      status: 'scheduled',
      scheduledFor: '2026-11-24T08:00:00.000Z',
      durationMinutes: 90,
      assignee: { id: ann.id, name: 'Ann de Vries' },
    };
    expect(res.json()).toMatchObject(expected);
    expect((await ctx.api.get(`/v1/leads/${id}`, { key: ctx.keys['leads:read'] })).json()).toMatchObject(
      expected,
    );
    expect(
      (await ctx.api.get(`/v1/work-items/${id}`, { key: ctx.keys['work-items:read'] })).json(),
    ).toMatchObject(expected);
    const list = (await ctx.api.get('/v1/work-items?limit=100', { key: ctx.keys['work-items:read'] })).json();
    expect(list.data.find((i: { id: string }) => i.id === id)).toMatchObject(expected);
    const changed = (await events('lead.status_changed')).filter((e) => e.data.lead.id === id);
    expect(changed).toHaveLength(1);
    expect(changed[0]!.data).toMatchObject({ from: 'request', to: 'scheduled', lead: expected });
    expect((await events('lead.updated')).filter((e) => e.data.lead.id === id)).toHaveLength(0);
  });

  it('a plan without a state change on a work item: lead.updated naming only the fields that changed; the same plan again fires nothing', async () => {
    const id = await leadIn('scheduled', 'planned');
    const first = await ctx.api.patch(`/v1/leads/${id}`, {
      scheduledFor: '2026-12-01T07:30:00Z',
      durationMinutes: 60,
    });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ status: 'planned', durationMinutes: 60, assignee: null });
    const second = await ctx.api.patch(`/v1/leads/${id}`, { durationMinutes: 60, assigneeId: bob.id });
    expect(second.statusCode, second.body).toBe(200);
    // Bob has no name: his email stands in.
    expect(second.json().assignee).toEqual({ id: bob.id, name: 'bob@example.com' });
    expect((await ctx.api.patch(`/v1/leads/${id}`, { assigneeId: bob.id })).statusCode).toBe(200);
    const updated = (await events('lead.updated')).filter((e) => e.data.lead.id === id).reverse();
    expect(updated.map((e) => e.data.changed)).toEqual([['scheduledFor', 'durationMinutes'], ['assigneeId']]);
    expect(updated[1]!.data.lead).toMatchObject({ assignee: { id: bob.id }, durationMinutes: 60 });
    // Nobody yet, and clearing the time.
    const cleared = await ctx.api.patch(`/v1/leads/${id}`, { assigneeId: null, scheduledFor: null });
    expect(cleared.json()).toMatchObject({ assignee: null, scheduledFor: null, durationMinutes: 60 });
  });

  it('a visit in the past is allowed (logging work done), with a state change of open work', async () => {
    const id = await leadIn('scheduled', 'planned', 'in_progress');
    const res = await ctx.api.patch(`/v1/leads/${id}`, {
      status: 'completed',
      scheduledFor: '2020-01-02T08:00:00Z',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'completed', scheduledFor: '2020-01-02T08:00:00.000Z' });
  });

  it('a lead in request or quoted without status scheduled: 409 naming its state, nothing stored', async () => {
    for (const id of [await leadIn(), await leadIn('quoted')]) {
      const res = await ctx.api.patch(`/v1/leads/${id}`, { scheduledFor: '2026-12-01T07:30:00Z' });
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().detail).toMatch(/is scheduled/);
      expect(res.json().currentStatus).toMatch(/request|quoted/);
      const quoted = await ctx.api.patch(`/v1/leads/${id}`, { status: 'quoted', durationMinutes: 60 });
      expect(quoted.statusCode).toBe(409);
      expect((await ctx.api.get(`/v1/leads/${id}`)).json()).toMatchObject({
        scheduledFor: null,
        durationMinutes: null,
      });
    }
  });

  it('completed and cancelled items cannot be re-planned: 409', async () => {
    const done = await leadIn('scheduled', 'planned', 'in_progress', 'completed');
    const res = await ctx.api.patch(`/v1/leads/${done}`, { scheduledFor: '2026-12-01T07:30:00Z' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ currentStatus: 'completed' });
    expect(res.json().detail).toMatch(/completed visit cannot be re-planned/);
    const cancelled = await leadIn('scheduled', 'cancelled');
    const again = await ctx.api.patch(`/v1/leads/${cancelled}`, { assigneeId: ann.id });
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toMatch(/cancelled/);
  });

  it('a state change the table refuses is still its own 409', async () => {
    const id = await leadIn();
    const res = await ctx.api.patch(`/v1/leads/${id}`, { status: 'completed', durationMinutes: 60 });
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toMatch(/cannot move to "completed"/);
  });

  it.each([
    [{ durationMinutes: 14 }, 'durationMinutes'],
    [{ durationMinutes: 1441 }, 'durationMinutes'],
    [{ durationMinutes: 30.5 }, 'durationMinutes'],
    [{ durationMinutes: '60' }, 'durationMinutes'],
    [{ scheduledFor: 'tomorrow' }, 'scheduledFor'],
    [{ scheduledFor: '2026-12-01T07:30:00' }, 'scheduledFor'],
    [{ scheduledFor: '2026-02-30T07:30:00Z' }, 'scheduledFor'],
    [{ assigneeId: 'ann' }, 'assigneeId'],
    [{ assigneeId: 'usr_01unknownunknownunknown00' }, 'assigneeId'],
    [{ status: 'planned', assigneeId: 42 }, 'assigneeId'],
    [{ scheduledFor: '2026-12-01T07:30:00Z', when: 'now' }, 'when'],
    [{}, 'status'],
  ])('body %j is a 422 naming %s, nothing changes', async (payload, field) => {
    const id = await leadIn('scheduled');
    const before = (await ctx.api.get(`/v1/leads/${id}`)).json();
    const res = await ctx.api.patch(`/v1/leads/${id}`, payload);
    expect(res.statusCode, res.body).toBe(422);
    expect(fieldsOf(res)).toContain(field);
    expect((await ctx.api.get(`/v1/leads/${id}`)).json()).toEqual(before);
  });

  it('an assignee of another brand, or a removed or disabled user, is a 422 naming assigneeId', async () => {
    const id = await leadIn('scheduled');
    const other = await ctx.api.patch(`/v1/leads/${id}`, { assigneeId: stranger.id });
    expect(other.statusCode).toBe(422);
    expect(other.json().errors).toEqual([{ field: 'assigneeId', message: 'is not a user of this brand' }]);
    const gone = await addUser(ctx.app, ctx.brandId, `gone-${dialect}@example.com`, 'member');
    await ctx.app.deps.database.db
      .updateTable('users')
      .set({ disabled_at: Date.now() })
      .where('id', '=', gone.id)
      .execute();
    expect(fieldsOf(await ctx.api.patch(`/v1/leads/${id}`, { assigneeId: gone.id }))).toEqual(['assigneeId']);
  });

  it('another brand’s lead is a 404, and the plan needs the full scope', async () => {
    const id = await leadIn('scheduled');
    expect(
      (await ctx.api.patch(`/v1/leads/${id}`, { durationMinutes: 60 }, { key: ctx.keys.other })).statusCode,
    ).toBe(404);
    expect(
      (await ctx.api.patch(`/v1/leads/${id}`, { durationMinutes: 60 }, { key: ctx.keys['leads:write'] }))
        .statusCode,
    ).toBe(403);
    expect((await ctx.api.get(`/v1/leads/${id}`)).json().durationMinutes).toBeNull();
  });

  describe('warnings: planning warns, without refusing', () => {
    let dora: { id: string };
    let eve: { id: string };
    beforeAll(async () => {
      dora = await addUser(ctx.app, ctx.brandId, `dora-${dialect}@example.com`, 'member');
      eve = await addUser(ctx.app, ctx.brandId, `eve-${dialect}@example.com`, 'member');
      await ctx.app.deps.database.db
        .updateTable('users')
        .set({ name: 'Dora' })
        .where('id', '=', dora.id)
        .execute();
    });
    const warningsOf = (res: { statusCode: number; body: string; json(): Record<string, unknown> }) => {
      expect(res.statusCode, res.body).toBe(200);
      return res.json().warnings as { code: string; detail: string; visit: Record<string, unknown> | null }[];
    };
    const planned = async (plan: Record<string, unknown>, ...steps: string[]) => {
      const id = await leadIn(...steps);
      return { id, res: await ctx.api.patch(`/v1/leads/${id}`, plan) };
    };

    it('a visit overlapping another of the same person: saved, with one visit_overlap warning per other visit', async () => {
      const first = await planned({
        status: 'scheduled',
        scheduledFor: '2032-03-01T09:00:00Z',
        durationMinutes: 120,
        assigneeId: dora.id,
      });
      expect(warningsOf(first.res)).toBeUndefined();
      const second = await planned(
        { scheduledFor: '2032-03-01T10:30:00Z', durationMinutes: 60, assigneeId: dora.id },
        'scheduled',
        'planned',
      );
      const warnings = warningsOf(second.res);
      expect(warnings).toEqual([
        {
          code: 'visit_overlap',
          detail: expect.stringContaining('Dora has another visit at that time'),
          visit: {
            id: first.id,
            title: expect.stringMatching(/^Leaking tap \d+$/),
            scheduledFor: '2032-03-01T09:00:00.000Z',
            durationMinutes: 120,
          },
        },
      ]);
      // Saved all the same; the read and the event carry no warnings.
      const read = (await ctx.api.get(`/v1/leads/${second.id}`)).json();
      expect(read).toMatchObject({ scheduledFor: '2032-03-01T10:30:00.000Z', assignee: { id: dora.id } });
      expect(read.warnings).toBeUndefined();
      expect(second.res.json()).toEqual({ ...read, warnings });
      const updated = (await events('lead.updated')).find((e) => e.data.lead.id === second.id)!;
      expect(updated.data.lead).not.toHaveProperty('warnings');

      // A third one at 10:45 for 15 minutes overlaps both; the first, shortened to end at 10:40, only the second.
      const third = await planned({
        status: 'scheduled',
        scheduledFor: '2032-03-01T10:45:00Z',
        durationMinutes: 15,
        assigneeId: dora.id,
      });
      expect(warningsOf(third.res).map((w) => w.visit!.id)).toEqual([first.id, second.id]);
      const again = await ctx.api.patch(`/v1/leads/${first.id}`, { durationMinutes: 100 });
      expect(warningsOf(again).map((w) => w.visit!.id)).toEqual([second.id]);
    });

    it('no warning for another person, for back-to-back visits, or for another brand’s visit; the same start always overlaps', async () => {
      const base = { scheduledFor: '2032-04-01T09:00:00Z', durationMinutes: 60 };
      const first = await planned({ status: 'scheduled', ...base, assigneeId: dora.id });
      expect(warningsOf(first.res)).toBeUndefined();
      expect(
        warningsOf((await planned({ status: 'scheduled', ...base, assigneeId: eve.id })).res),
      ).toBeUndefined();
      // Starting when the first ends, or ending when it starts.
      const after = await planned({
        status: 'scheduled',
        scheduledFor: '2032-04-01T10:00:00Z',
        durationMinutes: 30,
        assigneeId: dora.id,
      });
      expect(warningsOf(after.res)).toBeUndefined();
      const before = await planned({
        status: 'scheduled',
        scheduledFor: '2032-04-01T08:00:00Z',
        durationMinutes: 60,
        assigneeId: dora.id,
      });
      expect(warningsOf(before.res)).toBeUndefined();
      // Without a duration a visit is its start moment: at the first's start, it overlaps.
      const moment = await planned({
        status: 'scheduled',
        scheduledFor: base.scheduledFor,
        assigneeId: dora.id,
      });
      expect(warningsOf(moment.res).map((w) => w.visit!.id)).toEqual([first.id]);
      // Nobody yet: nobody to double-book.
      expect(
        warningsOf((await planned({ status: 'scheduled', ...base, assigneeId: null })).res),
      ).toBeUndefined();

      // Another brand's visit that names the same user id (written straight into the database) is not this
      // brand's business.
      const theirs = (await ctx.createLead({ title: 'Their job' }, ctx.keys.other)).id as string;
      await ctx.app.deps.database.db
        .updateTable('leads')
        .set({
          status: 'scheduled',
          stage: 'work',
          scheduled_at: Date.now(),
          scheduled_for: Date.parse('2032-05-01T09:00:00Z'),
          duration_minutes: 60,
          assignee_id: eve.id,
        })
        .where('id', '=', theirs)
        .execute();
      const mine = await planned({
        status: 'scheduled',
        scheduledFor: '2032-05-01T09:30:00Z',
        durationMinutes: 60,
        assigneeId: eve.id,
      });
      expect(warningsOf(mine.res)).toBeUndefined();
    });

    it('completed and cancelled visits are not in the way', async () => {
      const slot = { scheduledFor: '2032-06-01T09:00:00Z', durationMinutes: 60, assigneeId: dora.id };
      const done = await planned({ status: 'scheduled', ...slot });
      for (const status of ['planned', 'in_progress', 'completed']) await ctx.setStatus(done.id, status);
      const cancelled = await planned({ status: 'scheduled', ...slot });
      await ctx.setStatus(cancelled.id, 'cancelled');
      expect(warningsOf((await planned({ status: 'scheduled', ...slot })).res)).toBeUndefined();
    });

    it('a visit in the past: visit_in_past while it has not started; none for work begun or done, none for a bare state change', async () => {
      const past = '2020-01-02T08:00:00Z';
      const scheduled = await planned({ status: 'scheduled', scheduledFor: past });
      expect(warningsOf(scheduled.res)).toEqual([
        {
          code: 'visit_in_past',
          detail: 'The visit starts in the past (2020-01-02T08:00:00.000Z). It is saved as sent.',
          visit: null,
        },
      ]);
      expect((await ctx.api.get(`/v1/leads/${scheduled.id}`)).json().scheduledFor).toBe(
        '2020-01-02T08:00:00.000Z',
      );
      // A bare state change is answered with the single read, exactly.
      const moved = await ctx.api.patch(`/v1/leads/${scheduled.id}`, { status: 'planned' });
      expect(moved.json()).toEqual((await ctx.api.get(`/v1/leads/${scheduled.id}`)).json());
      expect(moved.json().warnings).toBeUndefined();
      const begun = await planned({ scheduledFor: past }, 'scheduled', 'planned', 'in_progress');
      expect(warningsOf(begun.res)).toBeUndefined();
      const logged = await planned(
        { status: 'completed', scheduledFor: past },
        'scheduled',
        'planned',
        'in_progress',
      );
      expect(warningsOf(logged.res)).toBeUndefined();
      expect(
        warningsOf((await planned({ status: 'scheduled', scheduledFor: '2032-01-01T08:00:00Z' })).res),
      ).toBeUndefined();
    });
  });

  describe('work-item filters', () => {
    let early: string;
    let late: string;
    let unplanned: string;
    beforeAll(async () => {
      early = await leadIn('scheduled');
      late = await leadIn('scheduled');
      unplanned = await leadIn('scheduled');
      await ctx.api.patch(`/v1/leads/${early}`, { scheduledFor: '2031-03-03T08:00:00Z', assigneeId: ann.id });
      await ctx.api.patch(`/v1/leads/${late}`, { scheduledFor: '2031-03-10T08:00:00Z', assigneeId: bob.id });
    });
    const ids = async (query: string) =>
      (
        (await ctx.api.get(`/v1/work-items?limit=100&${query}`, { key: ctx.keys['work-items:read'] })).json()
          .data as {
          id: string;
        }[]
      )
        .map((i) => i.id)
        .filter((i) => [early, late, unplanned].includes(i));

    it('scheduledFrom is inclusive, scheduledTo exclusive; items without a visit are left out', async () => {
      expect(await ids('scheduledFrom=2031-03-03T08:00:00Z')).toEqual(expect.arrayContaining([early, late]));
      expect(await ids('scheduledFrom=2031-03-03T08:00:00Z')).not.toContain(unplanned);
      expect(await ids('scheduledFrom=2031-03-03T08:00:00.001Z')).toEqual([late]);
      expect(await ids('scheduledFrom=2031-03-03T00:00:00Z&scheduledTo=2031-03-10T08:00:00Z')).toEqual([
        early,
      ]);
      expect(await ids('scheduledTo=2031-03-10T08:00:00.001Z')).toEqual(
        expect.arrayContaining([early, late]),
      );
    });

    it('assigneeId keeps that person’s visits', async () => {
      expect(await ids(`assigneeId=${ann.id}&scheduledFrom=2031-01-01T00:00:00Z`)).toEqual([early]);
      expect(await ids(`assigneeId=${bob.id}`)).toEqual([late]);
    });

    it.each([
      ['scheduledFrom=next-week', 'scheduledFrom'],
      ['scheduledTo=2031-13-01T00:00:00Z', 'scheduledTo'],
      ['assigneeId=usr_nobody', 'assigneeId'],
    ])('%s is a 422 naming %s', async (query, field) => {
      const res = await ctx.api.get(`/v1/work-items?${query}`, { key: ctx.keys['work-items:read'] });
      expect(res.statusCode, res.body).toBe(422);
      expect(fieldsOf(res)).toEqual([field]);
    });

    it('a user of another brand is a 422 naming assigneeId', async () => {
      const res = await ctx.api.get(`/v1/work-items?assigneeId=${stranger.id}`, {
        key: ctx.keys['work-items:read'],
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors).toEqual([{ field: 'assigneeId', message: 'is not a user of this brand' }]);
    });

    it('the lead list takes no planning filters', async () => {
      const res = await ctx.api.get('/v1/leads?scheduledFrom=2031-03-03T08:00:00Z', {
        key: ctx.keys['leads:read'],
      });
      expect(res.statusCode).toBe(422);
    });
  });

  it('plans sent while the state changes all land: each 200, each value change one lead.updated', async () => {
    const id = await leadIn('scheduled');
    const durations = [30, 45, 60, 90, 120, 150];
    const results = await Promise.all([
      ...durations.map((d) => ctx.api.patch(`/v1/leads/${id}`, { durationMinutes: d })),
      ctx.api.patch(`/v1/leads/${id}`, { status: 'planned' }),
    ]);
    expect(results.map((r) => r.statusCode)).toEqual(durations.map(() => 200).concat(200));
    const lead = (await ctx.api.get(`/v1/leads/${id}`)).json();
    expect(lead.status).toBe('planned');
    expect(durations).toContain(lead.durationMinutes);
    const updated = (await events('lead.updated')).filter((e) => e.data.lead.id === id);
    expect(updated).toHaveLength(durations.length);
  });

  it('removing a user makes their visits "nobody yet"', async () => {
    const carl = await addUser(ctx.app, ctx.brandId, `carl-${dialect}@example.com`, 'member');
    const id = await leadIn('scheduled');
    await ctx.api.patch(`/v1/leads/${id}`, { assigneeId: carl.id });
    const { removeUser } = await import('../../src/accounts/users.js');
    const admin = await addUser(ctx.app, ctx.brandId, `admin-${dialect}@example.com`);
    await removeUser(ctx.app.deps.database, ctx.brandId, carl.id, admin.id);
    expect((await ctx.api.get(`/v1/leads/${id}`)).json().assignee).toBeNull();
  });
});
