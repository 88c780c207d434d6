// Moving a lead through its states in the domain, without the API: every change states.ts allows moves the lead
// and writes one history entry (who, when, the reason of a cancellation) and one lead.status_changed event; every
// other change is refused with InvalidTransitionError and changes nothing. The table of allowed changes is written
// out here rather than read from states.ts, so a change to the rules fails these tests.
import { beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import { type Actor, changeLeadStatus, createLead, getLead, type LeadSource } from '../../src/leads/index.js';
import { parseLeadInput } from '../../src/leads/input.js';
import type { Status } from '../../src/leads/states.js';
import { InvalidTransitionError, NotFoundError } from '../../src/shared/errors.js';
import { newId } from '../../src/shared/ids.js';
import { dialects, validLead } from '../helpers.js';
import { PATH_TO, STATUSES } from '../lead-paths.js';
import { migratedDatabase } from '../migrated-database.js';

/** The contract's lifecycle: what each state may move to. */
const ALLOWED: Record<Status, Status[]> = {
  request: ['quoted', 'scheduled', 'cancelled'],
  quoted: ['scheduled', 'cancelled'],
  scheduled: ['planned', 'cancelled'],
  planned: ['in_progress', 'cancelled'],
  in_progress: ['completed', 'cancelled'],
  completed: [],
  cancelled: ['request'],
};
const STAGE: Record<Status, string> = {
  request: 'lead',
  quoted: 'lead',
  scheduled: 'work',
  planned: 'work',
  in_progress: 'work',
  completed: 'work',
  cancelled: 'closed',
};

const OFFICE: Actor = { type: 'user', id: 'usr_office', name: 'Office' };
const KEY: Actor = { type: 'key', id: 'key_domain', name: 'Domain test' };

describe.each(dialects())('lead state changes on %s', (dialect) => {
  const database = migratedDatabase(dialect);
  let brandId = '';
  let otherBrandId = '';
  // Registered after migratedDatabase's beforeAll, so it runs on the migrated database.
  beforeAll(async () => {
    brandId = (await createBrand(database, { language: 'en', name: 'Acme Plumbing', country: 'NL' })).id;
    otherBrandId = (await createBrand(database, { language: 'en', name: 'Other Builders', country: 'BE' }))
      .id;
  });

  const source = (brand = brandId, spam = false): LeadSource => ({
    brandId: brand,
    source: spam ? 'form' : 'website',
    keyId: spam ? null : KEY.id,
    keyName: spam ? null : KEY.name,
    ...(spam
      ? {
          form: {
            id: 'frm_01jzzzzzzzzzzzzzzzzzzzzzzz',
            name: 'Website',
            spam: true,
            extraFields: null,
            attribution: null,
            consent: null,
          },
        }
      : {}),
  });
  /** A new lead moved along PATH_TO to `status`; returns its id. */
  const leadIn = async (status: Status) => {
    const { id } = await createLead(
      database,
      source(),
      parseLeadInput(validLead({ title: `Lead in ${status}` })),
    );
    for (const step of PATH_TO[status]) await changeLeadStatus(database, brandId, id, step, OFFICE);
    return id;
  };
  const row = async (id: string) => {
    const r = await database.db
      .selectFrom('leads')
      .select(['status', 'stage', 'scheduled_at', 'updated_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    // PostgreSQL's bigint comes back as a string.
    return {
      ...r,
      scheduled_at: r.scheduled_at === null ? null : Number(r.scheduled_at),
      updated_at: Number(r.updated_at),
    };
  };
  const history = async (id: string) =>
    (
      await database.db
        .selectFrom('lead_status_history')
        .select(['seq', 'status', 'at', 'actor_type', 'actor_id', 'actor_name', 'reason'])
        .where('lead_id', '=', id)
        .orderBy('seq')
        .execute()
    ).map((h) => ({ ...h, seq: Number(h.seq), at: Number(h.at) }));
  const statusEventsSince = async (mark: string, leadId: string) =>
    (
      await database.db
        .selectFrom('events')
        .select(['type', 'data'])
        .where('brand_id', '=', brandId)
        .where('id', '>', mark)
        .orderBy('id')
        .execute()
    )
      .map((e) => ({
        type: e.type,
        ...(JSON.parse(e.data) as { lead: { id: string }; from?: string; to?: string }),
      }))
      .filter((e) => e.lead.id === leadId);

  const allowedPairs = STATUSES.flatMap((from) => ALLOWED[from].map((to) => ({ from, to })));

  it.each(allowedPairs)(
    '$from → $to moves the lead, with one history entry and one event',
    async ({ from, to }) => {
      const id = await leadIn(from);
      const before = await history(id);
      const mark = newId('event');
      const result = await changeLeadStatus(database, brandId, id, to, KEY, { reason: 'No longer needed' });
      expect(result).toMatchObject({ from, to, lead: { id, status: to } });

      expect(await row(id)).toMatchObject({ status: to, stage: STAGE[to], updated_at: result.at });
      const after = await history(id);
      expect(after.slice(0, -1)).toEqual(before);
      expect(after.at(-1)).toEqual({
        seq: before.length + 1,
        status: to,
        at: result.at,
        actor_type: 'key',
        actor_id: KEY.id,
        actor_name: KEY.name,
        // A reason belongs to a cancellation only.
        reason: to === 'cancelled' ? 'No longer needed' : null,
      });
      expect(after.map((h) => h.status)).toEqual(['request', ...PATH_TO[from], to]);
      // The single read shows the same history.
      expect((await getLead(database, brandId, id)).statusHistory.map((h) => h.status)).toEqual([
        'request',
        ...PATH_TO[from],
        to,
      ]);
      const events = await statusEventsSince(mark, id);
      expect(events).toEqual([expect.objectContaining({ type: 'lead.status_changed', from, to })]);
    },
  );

  it.each(STATUSES)('from %s every other change is refused and changes nothing', async (from) => {
    const id = await leadIn(from);
    const before = { row: await row(id), history: await history(id) };
    const mark = newId('event');
    const refused = STATUSES.filter((to) => !ALLOWED[from].includes(to));
    // The same state again is no change either.
    expect(refused).toContain(from);
    for (const to of refused) {
      const error = await changeLeadStatus(database, brandId, id, to, KEY).catch((e: unknown) => e);
      expect(error, `${from} → ${to}`).toBeInstanceOf(InvalidTransitionError);
      expect(error).toMatchObject({
        currentStatus: from,
        requestedStatus: to,
        extra: { currentStatus: from, allowedStatuses: ALLOWED[from] },
      });
    }
    expect(await row(id)).toEqual(before.row);
    expect(await history(id)).toEqual(before.history);
    expect(await statusEventsSince(mark, id)).toEqual([]);
  });

  it('scheduling stamps scheduledAt; the stamp stays through the later states', async () => {
    const id = await leadIn('request');
    expect((await row(id)).scheduled_at).toBeNull();
    const { at } = await changeLeadStatus(database, brandId, id, 'scheduled', OFFICE);
    expect((await row(id)).scheduled_at).toBe(at);
    await changeLeadStatus(database, brandId, id, 'planned', OFFICE);
    expect((await row(id)).scheduled_at).toBe(at);
  });

  it('reopening a cancelled work item clears its planning and scheduledAt: a lead again', async () => {
    const id = await leadIn('request');
    await changeLeadStatus(database, brandId, id, 'scheduled', OFFICE);
    await database.db
      .updateTable('leads')
      .set({ scheduled_for: Date.parse('2026-12-01T08:00:00Z'), duration_minutes: 90, assignee_id: 'usr_x' })
      .where('id', '=', id)
      .execute();
    await changeLeadStatus(database, brandId, id, 'cancelled', OFFICE, { reason: 'By mistake' });
    // Cancelling keeps the plan (the business's record of what was planned).
    const cancelled = await database.db
      .selectFrom('leads')
      .select(['scheduled_for', 'duration_minutes', 'assignee_id'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(Number(cancelled.scheduled_for)).toBe(Date.parse('2026-12-01T08:00:00Z'));
    const { at } = await changeLeadStatus(database, brandId, id, 'request', OFFICE, { from: 'cancelled' });
    expect(await row(id)).toEqual({ status: 'request', stage: 'lead', scheduled_at: null, updated_at: at });
    const plan = await database.db
      .selectFrom('leads')
      .select(['scheduled_for', 'duration_minutes', 'assignee_id'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(plan).toEqual({ scheduled_for: null, duration_minutes: null, assignee_id: null });
    expect((await history(id)).map((h) => [h.status, h.actor_name, h.reason])).toEqual([
      ['request', KEY.name, null],
      ['scheduled', OFFICE.name, null],
      ['cancelled', OFFICE.name, 'By mistake'],
      ['request', OFFICE.name, null],
    ]);
    // And it moves on like any request.
    await changeLeadStatus(database, brandId, id, 'quoted', OFFICE);
    expect((await row(id)).status).toBe('quoted');
  });

  it('a change decided in a state the lead has left is refused, naming the state it is in now', async () => {
    const id = await leadIn('request');
    await changeLeadStatus(database, brandId, id, 'quoted', OFFICE);
    // Scheduling is allowed from quoted too, but the page that asked showed the lead as a request.
    const error = await changeLeadStatus(database, brandId, id, 'scheduled', OFFICE, {
      from: 'request',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidTransitionError);
    expect(error).toMatchObject({ currentStatus: 'quoted', requestedStatus: 'scheduled' });
    expect((await row(id)).status).toBe('quoted');
    expect((await history(id)).map((h) => h.status)).toEqual(['request', 'quoted']);
    // Asked from the state it is in, the same change goes through.
    await changeLeadStatus(database, brandId, id, 'scheduled', OFFICE, { from: 'quoted' });
    expect((await row(id)).status).toBe('scheduled');
  });

  it('of two changes decided in the same state at once exactly one wins; the other is refused', async () => {
    const id = await leadIn('request');
    // Two people on the same page: one sends the quote, the other cancels.
    const results = await Promise.allSettled([
      changeLeadStatus(database, brandId, id, 'quoted', OFFICE, { from: 'request' }),
      changeLeadStatus(database, brandId, id, 'cancelled', OFFICE, { from: 'request' }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(InvalidTransitionError);
    const winner = (won[0] as PromiseFulfilledResult<{ to: Status }>).value.to;
    expect((await row(id)).status).toBe(winner);
    expect((await history(id)).map((h) => h.status)).toEqual(['request', winner]);
  });

  it('the same change twice at once is made once: the second finds the lead moved already', async () => {
    const id = await leadIn('request');
    const results = await Promise.allSettled([
      changeLeadStatus(database, brandId, id, 'quoted', OFFICE),
      changeLeadStatus(database, brandId, id, 'quoted', OFFICE),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(InvalidTransitionError);
    expect(lost.reason).toMatchObject({ currentStatus: 'quoted', requestedStatus: 'quoted' });
    expect((await history(id)).map((h) => h.status)).toEqual(['request', 'quoted']);
  });

  it('another brand’s lead, a spam lead and an unknown id are not found', async () => {
    const theirs = await createLead(database, source(otherBrandId), parseLeadInput(validLead()));
    const spam = await createLead(database, source(brandId, true), parseLeadInput(validLead()));
    for (const id of [theirs.id, spam.id, newId('lead')]) {
      await expect(changeLeadStatus(database, brandId, id, 'quoted', OFFICE)).rejects.toBeInstanceOf(
        NotFoundError,
      );
    }
    expect((await row(theirs.id)).status).toBe('request');
    expect((await row(spam.id)).status).toBe('request');
    expect(await history(spam.id)).toHaveLength(1);
  });
});
