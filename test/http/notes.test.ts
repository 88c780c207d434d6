// Internal notes through the API: add, list newest first with paging, validation, scopes, brands, the event.
import { describe, expect, it } from 'vitest';
import { dialects } from '../helpers.js';
import { useTestContext } from '../test-context.js';

describe.each(dialects())('lead notes API on %s', (dialect) => {
  const ctx = useTestContext(dialect);

  it('adds a note: 201 with id, trimmed text, the key as author and Location', async () => {
    const lead = await ctx.createLead({ title: 'Note me' });
    const res = await ctx.api.post(`/v1/leads/${lead.id}/notes`, {
      text: '  Customer prefers mornings.\nRing twice.  ',
    });
    expect(res.statusCode).toBe(201);
    const note = res.json();
    expect(note).toEqual({
      id: expect.stringMatching(/^not_[0-9a-z]{26}$/),
      text: 'Customer prefers mornings.\nRing twice.',
      author: { type: 'key', id: ctx.keyIds.full, name: 'key full' },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(res.headers.location).toBe(`/v1/leads/${lead.id}/notes/${note.id}`);
    const one = await ctx.api.get(res.headers.location as string);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(note);
  });

  it('lists notes newest first in the list envelope, paged by cursor without gaps', async () => {
    const lead = await ctx.createLead({ title: 'Many notes' });
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++)
      ids.push((await ctx.api.post(`/v1/leads/${lead.id}/notes`, { text: `note ${i}` })).json().id);
    const first = (await ctx.api.get(`/v1/leads/${lead.id}/notes?limit=2`)).json();
    expect(first.limit).toBe(2);
    expect(first.hasMore).toBe(true);
    expect(first.data.map((n: { text: string }) => n.text)).toEqual(['note 5', 'note 4']);
    const seen = [...first.data];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = (await ctx.api.get(`/v1/leads/${lead.id}/notes?limit=2&cursor=${cursor}`)).json();
      seen.push(...page.data);
      cursor = page.nextCursor;
    }
    expect(seen.map((n: { id: string }) => n.id)).toEqual([...ids].reverse());
    const asc = (await ctx.api.get(`/v1/leads/${lead.id}/notes?order=asc`)).json();
    expect(asc.data.map((n: { id: string }) => n.id)).toEqual(ids);
    expect(asc.hasMore).toBe(false);
    expect(asc.nextCursor).toBeNull();
    // Another lead's notes are not listed with these.
    const other = await ctx.createLead({ title: 'No notes' });
    expect((await ctx.api.get(`/v1/leads/${other.id}/notes`)).json().data).toEqual([]);
  });

  it('takes notes on work items, completed and cancelled leads alike', async () => {
    const done = await ctx.createLead({ title: 'Done job' });
    for (const s of ['scheduled', 'planned', 'in_progress', 'completed'])
      await ctx.setStatus(done.id as string, s);
    const cancelled = await ctx.createLead({ title: 'Called off' });
    await ctx.setStatus(cancelled.id as string, 'cancelled');
    for (const lead of [done, cancelled]) {
      const res = await ctx.api.post(`/v1/leads/${lead.id}/notes`, { text: 'after the fact' });
      expect(res.statusCode).toBe(201);
      expect((await ctx.api.get(`/v1/leads/${lead.id}/notes`)).json().data).toHaveLength(1);
    }
  });

  it('refuses an empty, blank, over-long or missing text with a 422 naming text, and unknown fields', async () => {
    const lead = await ctx.createLead({ title: 'Bad notes' });
    const cases: [unknown, string[]][] = [
      [{ text: '' }, ['text']],
      [{ text: '   \n\t ' }, ['text']],
      [{ text: '\u200b' }, ['text']],
      [{ text: 'x'.repeat(5001) }, ['text']],
      [{}, ['text']],
      [{ text: 42 }, ['text']],
      [{ text: 'fine', author: 'me' }, ['author']],
      [{ txt: 'typo' }, ['txt', 'text']],
    ];
    for (const [payload, fields] of cases) {
      const res = await ctx.api.post(`/v1/leads/${lead.id}/notes`, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(fields);
    }
    // Exactly 5,000 characters (after trimming) is fine; emoji count as one character each.
    expect(
      (await ctx.api.post(`/v1/leads/${lead.id}/notes`, { text: ` ${'x'.repeat(5000)} ` })).statusCode,
    ).toBe(201);
    expect((await ctx.api.post(`/v1/leads/${lead.id}/notes`, { text: '👍'.repeat(5000) })).statusCode).toBe(
      201,
    );
    expect((await ctx.api.get(`/v1/leads/${lead.id}/notes`)).json().data).toHaveLength(2);
  });

  it("answers another brand's lead or note with 404, and an unknown one too", async () => {
    const lead = await ctx.createLead({ title: 'Private notes' });
    const note = (await ctx.api.post(`/v1/leads/${lead.id}/notes`, { text: 'secret' })).json();
    expect(
      (await ctx.api.post(`/v1/leads/${lead.id}/notes`, { text: 'intrusion' }, { key: ctx.keys.other }))
        .statusCode,
    ).toBe(404);
    expect((await ctx.api.get(`/v1/leads/${lead.id}/notes`, { key: ctx.keys.other })).statusCode).toBe(404);
    expect(
      (await ctx.api.get(`/v1/leads/${lead.id}/notes/${note.id}`, { key: ctx.keys.other })).statusCode,
    ).toBe(404);
    expect(
      (await ctx.api.post('/v1/leads/wrk_00000000000000000000000000/notes', { text: 'x' })).statusCode,
    ).toBe(404);
    // A note read through another lead of the same brand is not found either.
    const other = await ctx.createLead({ title: 'Other lead' });
    expect((await ctx.api.get(`/v1/leads/${other.id}/notes/${note.id}`)).statusCode).toBe(404);
    expect((await ctx.api.get(`/v1/leads/${lead.id}/notes`)).json().data).toHaveLength(1);
  });

  it('needs the full scope: other keys get a 403 naming it', async () => {
    const lead = await ctx.createLead({ title: 'Scoped notes' });
    for (const scope of ['leads:read', 'leads:write', 'work-items:read', 'customers:read'] as const) {
      const write = await ctx.api.post(`/v1/leads/${lead.id}/notes`, { text: 'x' }, { key: ctx.keys[scope] });
      expect(write.statusCode).toBe(403);
      expect(write.json().requiredScope).toBe('full');
      expect((await ctx.api.get(`/v1/leads/${lead.id}/notes`, { key: ctx.keys[scope] })).statusCode).toBe(
        403,
      );
    }
  });

  it('records note.created with the note and the lead id', async () => {
    const lead = await ctx.createLead({ title: 'Note event' });
    const note = (await ctx.api.post(`/v1/leads/${lead.id}/notes`, { text: 'watch the dog' })).json();
    const events = (await ctx.api.get('/v1/events?type=note.created&limit=100')).json().data;
    const event = events.find((e: { data: { note?: { id: string } } }) => e.data.note?.id === note.id);
    expect(event).toMatchObject({ type: 'note.created', createdAt: note.createdAt });
    expect(event.data).toEqual({ note, leadId: lead.id });
  });

  it('lists the notes routes in the OpenAPI document', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const notes = doc.paths['/v1/leads/{id}/notes'];
    expect(notes.get.operationId).toBe('listLeadNotes');
    expect(notes.post.operationId).toBe('addLeadNote');
    expect(notes.post.security).toEqual([{ ApiKeyAuth: ['full'] }, { BearerAuth: ['full'] }]);
    expect(Object.keys(notes.post.responses)).toEqual(expect.arrayContaining(['201', '404', '422']));
    expect(doc.paths['/v1/leads/{id}/notes/{noteId}'].get.operationId).toBe('getLeadNote');
  });
});
