// Editing a customer (PATCH /v1/customers/{id}) and merging a duplicate into it (POST /v1/customers/{id}/merge):
// what is stored, the events, the customer's history, and the refusals (422, 404, 409), on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects, type TestContext } from '../helpers.js';

interface EventItem {
  id: string;
  type: string;
  data: Record<string, unknown> & { customer?: { id: string }; changed?: string[] };
}

describe.each(dialects())('customer edit and merge on %s', (dialect) => {
  let ctx: TestContext;
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${++n}-${dialect}-${Date.now()}`;
  const email = (prefix: string) => `${unique(prefix)}@example.com`;

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const customerOf = async (fields: Record<string, unknown>) => {
    const created = await ctx.createLead(fields);
    return { leadId: created.id as string, customerId: created.customerId as string };
  };
  const read = (id: string) => ctx.api.get(`/v1/customers/${id}`);
  const events = async (type: string, customerId: string) =>
    ((await ctx.api.get(`/v1/events?type=${type}&limit=100`)).json().data as EventItem[]).filter(
      (e) => e.data.customer?.id === customerId,
    );
  const activity = (customerId: string) =>
    ctx.app.deps.database.db
      .selectFrom('customer_activity')
      .selectAll()
      .where('customer_id', '=', customerId)
      .orderBy('at')
      .orderBy('id')
      .execute();
  const erase = (customerId: string) =>
    ctx.app.deps.database.db
      .updateTable('customers')
      .set({ erased_at: Date.now() })
      .where('id', '=', customerId)
      .execute();

  describe('PATCH /v1/customers/{id}', () => {
    it('sets every contact field by the lead input rules, fires customer.updated and records the edit', async () => {
      const { customerId } = await customerOf({ customerName: 'Anna Bakker', email: email('anna') });
      const before = (await read(customerId)).json();
      const newEmail = email('Anna.New');
      const res = await ctx.api.patch(`/v1/customers/${customerId}`, {
        name: '  Anna de Vries ',
        firstName: 'Anna',
        lastName: 'de Vries',
        companyName: 'De Vries Installatie',
        email: newEmail,
        phone: '06 1234 5678',
      });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({
        id: customerId,
        type: 'business',
        name: 'Anna de Vries',
        firstName: 'Anna',
        lastName: 'de Vries',
        companyName: 'De Vries Installatie',
        email: newEmail,
        phone: '+31612345678',
        leadCount: 1,
      });
      expect(Date.parse(body.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
      expect((await read(customerId)).json()).toEqual(body);
      // The new email is what links the next submission.
      const next = await ctx.createLead({ email: newEmail.toUpperCase(), customerName: 'Someone' });
      expect(next.customerId).toBe(customerId);

      const [event] = await events('customer.updated', customerId);
      expect(event?.data.changed?.sort()).toEqual(
        ['companyName', 'email', 'firstName', 'lastName', 'name', 'phone', 'type'].sort(),
      );
      const rows = await activity(customerId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        kind: 'updated',
        actor_type: 'key',
        actor_id: ctx.keyIds.full,
        actor_name: 'key full',
      });
      const detail = JSON.parse(rows[0]!.detail);
      expect(detail.from).toMatchObject({
        name: 'Anna Bakker',
        phone: null,
        companyName: null,
        type: 'person',
      });
      expect(detail.to).toMatchObject({
        name: 'Anna de Vries',
        phone: '+31612345678',
        companyName: 'De Vries Installatie',
        type: 'business',
      });
    });

    it('clears optional fields with null or an empty string, and takes an international phone', async () => {
      const { customerId } = await customerOf({
        customerName: 'Bas Kok',
        firstName: 'Bas',
        companyName: 'Kok BV',
        email: email('bas'),
        phone: '+31 6 5555 1111',
      });
      const res = await ctx.api.patch(`/v1/customers/${customerId}`, {
        firstName: null,
        companyName: '',
        phone: '+32 470 12 34 56',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ firstName: null, companyName: null, phone: '+32470123456' });
      const [event] = await events('customer.updated', customerId);
      expect(event?.data.changed?.sort()).toEqual(['companyName', 'firstName', 'phone']);
    });

    it('a patch that changes nothing answers the customer and writes nothing', async () => {
      const { customerId } = await customerOf({ customerName: 'Cor Dekker', email: email('cor') });
      const before = (await read(customerId)).json();
      for (const payload of [{}, { name: 'Cor Dekker' }, { name: ' Cor Dekker ', firstName: null }]) {
        const res = await ctx.api.patch(`/v1/customers/${customerId}`, payload);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual(before);
      }
      expect(await events('customer.updated', customerId)).toEqual([]);
      expect(await activity(customerId)).toEqual([]);
    });

    it('422 names every bad value and stores nothing', async () => {
      const original = email('dirk');
      const { customerId } = await customerOf({ customerName: 'Dirk Vos', email: original });
      const res = await ctx.api.patch(`/v1/customers/${customerId}`, {
        name: '   ',
        email: 'not-an-email',
        phone: '12',
        lastName: 'x'.repeat(201),
      });
      expect(res.statusCode).toBe(422);
      const fields = (res.json().errors as { field: string }[]).map((e) => e.field).sort();
      expect(fields).toEqual(['email', 'lastName', 'name', 'phone']);
      for (const payload of [{ name: null }, { name: '' }, { phone: 'call me' }, { email: 42 }]) {
        const bad = await ctx.api.patch(`/v1/customers/${customerId}`, payload);
        expect(bad.statusCode, JSON.stringify(payload)).toBe(422);
      }
      const unknown = await ctx.api.patch(`/v1/customers/${customerId}`, { postcode: '1234 AB', name: 'X' });
      expect(unknown.statusCode).toBe(422);
      expect(unknown.json().errors).toEqual([{ field: 'postcode', message: 'is not a known field' }]);
      expect((await read(customerId)).json()).toMatchObject({ name: 'Dirk Vos', email: original });
      expect(await events('customer.updated', customerId)).toEqual([]);
      expect(await activity(customerId)).toEqual([]);
    });

    it('409 when another customer of the brand has the email, saying to merge the two', async () => {
      const taken = email('eva');
      const other = await customerOf({ customerName: 'Eva Smit', email: taken });
      const { customerId } = await customerOf({ customerName: 'Eva S.', email: email('eva2') });
      const res = await ctx.api.patch(`/v1/customers/${customerId}`, { email: taken.toUpperCase() });
      expect(res.statusCode).toBe(409);
      expect(res.json().detail).toContain(other.customerId);
      expect(res.json().detail).toMatch(/merge/);
      expect(res.json().detail).toContain(`/v1/customers/${customerId}/merge`);
      expect((await read(customerId)).json().email).not.toBe(taken.toUpperCase());
      // Its own email in another case is no conflict.
      const own = (await read(other.customerId)).json().email as string;
      const recased = await ctx.api.patch(`/v1/customers/${other.customerId}`, { email: own.toUpperCase() });
      expect(recased.statusCode, recased.body).toBe(200);
      expect(recased.json().email).toBe(own.toUpperCase());
    });

    it('404 for an unknown or another brand’s customer; 409 for an erased one', async () => {
      const unknown = await ctx.api.patch('/v1/customers/cus_0000000000000000000000000z', { name: 'X' });
      expect(unknown.statusCode).toBe(404);
      const { customerId } = await customerOf({ customerName: 'Frits Erased', email: email('frits') });
      const other = await ctx.api.patch(
        `/v1/customers/${customerId}`,
        { name: 'X' },
        { key: ctx.keys.other },
      );
      expect(other.statusCode).toBe(404);
      await erase(customerId);
      const res = await ctx.api.patch(`/v1/customers/${customerId}`, { name: 'Frits' });
      expect(res.statusCode).toBe(409);
      expect(res.json().detail).toBe(`Customer ${customerId} was erased.`);
    });

    it('needs the full scope', async () => {
      const { customerId } = await customerOf({ customerName: 'Gijs', email: email('gijs') });
      const res = await ctx.api.patch(
        `/v1/customers/${customerId}`,
        { name: 'G' },
        { key: ctx.keys['customers:read'] },
      );
      expect(res.statusCode).toBe(403);
    });
  });

  describe('POST /v1/customers/{id}/merge', () => {
    const SURNAME = `Quarrington${dialect}`;

    it('moves every lead, note and address, fills empty fields, removes `from` and fires customer.merged', async () => {
      const keepEmail = email('zeb');
      // The kept customer: a lead at Keizersgracht 123 and one at Damrak 1.
      const k1 = await customerOf({ customerName: `Zebulon ${SURNAME}`, email: keepEmail, title: 'K1' });
      const keep = k1.customerId;
      const k2 = await ctx.createLead({ email: keepEmail, title: 'K2', street: 'Damrak', streetNumber: '1' });
      // The duplicate: other email, a phone and a company; one lead at the same Keizersgracht 123 (written
      // differently), one at Prinsengracht 5, a note, and an edit in its history.
      const f1 = await customerOf({
        customerName: 'Z. Q.',
        email: email('zq'),
        phone: '+31 6 7777 8888',
        companyName: 'Q Bouw',
        title: 'F1',
        street: 'keizers gracht',
        postalCode: '1015cj',
      });
      const from = f1.customerId;
      const f2 = await ctx.createLead({
        email: (await read(from)).json().email,
        title: 'F2',
        street: 'Prinsengracht',
        streetNumber: '5',
      });
      const note = await ctx.api.post(`/v1/leads/${f1.leadId}/notes`, { text: 'Call before noon' });
      expect(note.statusCode).toBe(201);
      expect((await ctx.api.patch(`/v1/customers/${from}`, { lastName: 'Q' })).statusCode).toBe(200);
      const fromBefore = (await read(from)).json();
      const keepBefore = (await read(keep)).json();
      const sameAddress = (await ctx.api.get(`/v1/leads/${k1.leadId}`)).json().address.id as string;
      const duplicateAddress = (await ctx.api.get(`/v1/leads/${f1.leadId}`)).json().address.id as string;
      const movedAddress = (await ctx.api.get(`/v1/leads/${f2.id}`)).json().address.id as string;
      expect(duplicateAddress).not.toBe(sameAddress);
      // Before: the search finds only the kept customer's leads by its name.
      const searched = async () =>
        ((await ctx.api.get(`/v1/leads?q=${SURNAME}&limit=100`)).json().data as { id: string }[])
          .map((l) => l.id)
          .sort();
      expect(await searched()).toEqual([k1.leadId, k2.id].sort());

      const res = await ctx.api.post(`/v1/customers/${keep}/merge`, { from });
      expect(res.statusCode, res.body).toBe(200);
      const merged = res.json();
      expect(merged).toMatchObject({
        id: keep,
        name: `Zebulon ${SURNAME}`,
        email: keepEmail,
        phone: '+31677778888',
        companyName: 'Q Bouw',
        lastName: 'Q',
        type: 'business',
        leadCount: 4,
      });
      expect(Date.parse(merged.updatedAt)).toBeGreaterThan(Date.parse(keepBefore.updatedAt));
      expect((await read(keep)).json()).toEqual(merged);
      expect((await read(from)).statusCode).toBe(404);

      // Every lead is the kept customer's; the same place is one address.
      const listed = (await ctx.api.get(`/v1/leads?customerId=${keep}&limit=100`)).json().data as {
        id: string;
        customer: { id: string; name: string };
      }[];
      expect(listed.map((l) => l.id).sort()).toEqual([k1.leadId, k2.id, f1.leadId, f2.id].sort());
      for (const item of listed)
        expect(item.customer).toMatchObject({ id: keep, name: `Zebulon ${SURNAME}` });
      const f1After = (await ctx.api.get(`/v1/leads/${f1.leadId}`)).json();
      expect(f1After.customer.id).toBe(keep);
      expect(f1After.address.id).toBe(sameAddress);
      expect(f1After.submitted.customerName).toBe('Z. Q.');
      expect((await ctx.api.get(`/v1/leads/${f2.id}`)).json().address.id).toBe(movedAddress);
      const notes = (await ctx.api.get(`/v1/leads/${f1.leadId}/notes`)).json().data as { text: string }[];
      expect(notes.map((x) => x.text)).toEqual(['Call before noon']);
      const addresses = (await ctx.api.get('/v1/addresses?limit=100')).json().data as {
        id: string;
        customerId: string;
      }[];
      expect(addresses.find((a) => a.id === duplicateAddress)).toBeUndefined();
      expect(addresses.find((a) => a.id === movedAddress)?.customerId).toBe(keep);
      expect(addresses.filter((a) => a.customerId === from)).toEqual([]);

      // The search finds the moved leads under the kept customer's name.
      expect(await searched()).toEqual([k1.leadId, k2.id, f1.leadId, f2.id].sort());

      // customer.merged with the kept customer after and `from` as it was; no customer.updated for the merge.
      const [event] = await events('customer.merged', keep);
      const { leadCount: _l, lastLeadAt: _a, ...keepRead } = merged;
      const { leadCount: _l2, lastLeadAt: _a2, ...fromRead } = fromBefore;
      expect(event?.data).toEqual({ customer: keepRead, from: fromRead });
      expect(await events('customer.updated', keep)).toEqual([]);

      // The history moved along, and the merge is in it.
      const rows = await activity(keep);
      expect(rows.map((r) => r.kind)).toEqual(['updated', 'merged']);
      expect(JSON.parse(rows[1]!.detail)).toEqual({ from });
      expect(rows[1]).toMatchObject({ actor_type: 'key', actor_id: ctx.keyIds.full, actor_name: 'key full' });
      expect(await activity(from)).toEqual([]);

      // A new submission with the removed customer's email links to nobody gone.
      const again = await ctx.createLead({ email: fromBefore.email, customerName: 'Z. Q.' });
      expect(again.customerId).not.toBe(from);
    });

    it('fills the email of a kept customer that had none, and never overwrites', async () => {
      const phone = '+31 6 4444 3210';
      const keep = (await customerOf({ customerName: 'Hanna Mol', email: undefined, phone })).customerId;
      const fromEmail = email('hanna');
      const from = (await customerOf({ customerName: 'H. Mol', email: fromEmail, firstName: 'Hanna' }))
        .customerId;
      const res = await ctx.api.post(`/v1/customers/${keep}/merge`, { from });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        name: 'Hanna Mol',
        email: fromEmail,
        firstName: 'Hanna',
        phone: '+31644443210',
      });
      // Its email links the next submission to the kept customer.
      expect((await ctx.createLead({ email: fromEmail })).customerId).toBe(keep);
    });

    it('a merge and submissions for the removed customer at the same moment: every lead ends up with a customer', async () => {
      const keepEmail = email('race-keep');
      const fromEmail = email('race-from');
      const phone = '+31 6 3131 4141';
      const keep = (await customerOf({ customerName: 'Race Keep', email: keepEmail })).customerId;
      const from = (await customerOf({ customerName: 'Race From', email: fromEmail, phone })).customerId;
      const submissions = Array.from({ length: 6 }, (_, i) =>
        ctx.api.post('/v1/leads', {
          street: 'Damrak',
          postalCode: '1012 LG',
          city: 'Amsterdam',
          title: `Race ${i}`,
          customerName: 'Race From',
          ...(i % 2 ? { email: fromEmail } : { phone }),
        }),
      );
      const [merged, ...created] = await Promise.all([
        ctx.api.post(`/v1/customers/${keep}/merge`, { from }),
        ...submissions,
      ]);
      expect(merged?.statusCode, merged?.body).toBe(200);
      for (const res of created) {
        expect(res.statusCode, res.body).toBe(201);
        // Linked before the merge (and moved by it) or after it: never left with the removed customer.
        const lead = (await ctx.api.get(`/v1/leads/${res.json().id}`)).json();
        const customerId = lead.customer.id as string;
        expect(customerId).not.toBe(from);
        expect((await read(customerId)).statusCode).toBe(200);
      }
      expect((await read(from)).statusCode).toBe(404);
    });

    it('refuses: the same customer (422), an unknown or other brand’s one (404 naming it), an erased one (409)', async () => {
      const keep = (await customerOf({ customerName: 'Ida', email: email('ida') })).customerId;
      const from = (await customerOf({ customerName: 'Ida 2', email: email('ida2') })).customerId;
      const same = await ctx.api.post(`/v1/customers/${keep}/merge`, { from: keep });
      expect(same.statusCode).toBe(422);
      expect(same.json().errors[0].field).toBe('from');

      const missing = 'cus_0000000000000000000000000z';
      const unknown = await ctx.api.post(`/v1/customers/${keep}/merge`, { from: missing });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().detail).toContain(missing);
      expect(unknown.json().detail).toContain('from');
      const theirs = (await ctx.createLead({}, ctx.keys.other)).customerId as string;
      const foreign = await ctx.api.post(`/v1/customers/${keep}/merge`, { from: theirs });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json().detail).toContain(theirs);
      const unknownKeep = await ctx.api.post(`/v1/customers/${missing}/merge`, { from });
      expect(unknownKeep.statusCode).toBe(404);
      expect(unknownKeep.json().detail).not.toContain(from);

      expect((await ctx.api.post(`/v1/customers/${keep}/merge`, {})).statusCode).toBe(422);
      expect((await ctx.api.post(`/v1/customers/${keep}/merge`, { from, also: 1 })).statusCode).toBe(422);
      expect(
        (await ctx.api.post(`/v1/customers/${keep}/merge`, { from }, { key: ctx.keys['customers:read'] }))
          .statusCode,
      ).toBe(403);

      await erase(from);
      const erased = await ctx.api.post(`/v1/customers/${keep}/merge`, { from });
      expect(erased.statusCode).toBe(409);
      expect(erased.json().detail).toBe(`Customer ${from} was erased.`);
      const erasedKeep = await ctx.api.post(`/v1/customers/${from}/merge`, { from: keep });
      expect(erasedKeep.statusCode).toBe(409);
      // Nothing moved.
      expect((await read(keep)).json().leadCount).toBe(1);
      expect(await events('customer.merged', keep)).toEqual([]);
    });
  });
});
