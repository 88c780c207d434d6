import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../api.js';
import { dialects, validLead } from '../helpers.js';
import { useTestContext } from '../test-context.js';

describe.each(dialects())('POST /v1/leads on %s', (dialect) => {
  const ctx = useTestContext(dialect);
  /** Sends the leads:write key. */
  let writer: ApiClient;
  beforeAll(async () => {
    writer = ctx.api.as(ctx.keys['leads:write']);
  });

  it('creates a lead: 201, Location, the spec 2.2 record', async () => {
    const res = await writer.post(
      '/v1/leads',
      validLead({ title: '  Boiler repair  ', description: 'No hot water', priority: 'high' }),
    );
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(res.headers.location).toBe(`/v1/leads/${body.id}`);
    expect(Object.keys(body).sort()).toEqual(
      [
        'id',
        'brandId',
        'customerId',
        'addressId',
        'title',
        'description',
        'status',
        'priority',
        'source',
        'receivedAt',
        'createdAt',
      ].sort(),
    );
    expect(body.id).toMatch(/^wrk_[0-9a-z]{26}$/);
    expect(body.brandId).toBe(ctx.brandId);
    expect(body.customerId).toMatch(/^cus_[0-9a-z]{26}$/);
    expect(body.addressId).toMatch(/^adr_[0-9a-z]{26}$/);
    expect(body.title).toBe('Boiler repair');
    expect(body.description).toBe('No hot water');
    expect(body.status).toBe('request');
    expect(body.priority).toBe('high');
    expect(body.source).toBe('website');
    expect(body.receivedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(body.createdAt).toBe(body.receivedAt);
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('defaults priority to medium and country to the brand default; stores phone as E.164', async () => {
    const created = (await writer.post('/v1/leads', validLead({ phone: '+31 (6) 12-34.56 78' }))).json();
    expect(created.priority).toBe('medium');
    const detail = await ctx.api.get(`/v1/leads/${created.id}`, { key: ctx.keys['leads:read'] });
    expect(detail.statusCode).toBe(200);
    const lead = detail.json();
    expect(lead.address.country).toBe('NL');
    expect(lead.customer.phone).toBe('+31612345678');
    expect(lead.customer.type).toBe('person');
    expect(lead.sourceKeyName).toBe('key leads:write');
    expect(lead.statusHistory).toEqual([
      {
        status: 'request',
        at: lead.receivedAt,
        actor: { type: 'key', id: ctx.keyIds['leads:write'], name: 'key leads:write' },
        reason: null,
      },
    ]);
  });

  it('upper-cases a given country and makes a business customer when companyName is sent', async () => {
    const created = (
      await writer.post('/v1/leads', validLead({ country: 'de', companyName: 'Bau GmbH' }))
    ).json();
    const lead = (await ctx.api.get(`/v1/leads/${created.id}`)).json();
    expect(lead.address.country).toBe('DE');
    expect(lead.customer.type).toBe('business');
    expect(lead.customer.companyName).toBe('Bau GmbH');
  });

  it('links an existing customer by email (case-insensitive); a phone shared with another email is someone else', async () => {
    const first = (
      await writer.post('/v1/leads', validLead({ email: 'Piet@Example.com', phone: '+31201234567' }))
    ).json();
    const byEmail = (
      await writer.post('/v1/leads', validLead({ email: 'piet@example.COM', phone: '+32470123456' }))
    ).json();
    expect(byEmail.customerId).toBe(first.customerId);
    const samePhone = (
      await writer.post(
        '/v1/leads',
        validLead({ email: 'someone-else@example.com', phone: '+31 20 123 4567' }),
      )
    ).json();
    expect(samePhone.customerId).not.toBe(first.customerId);
    const byPhone = (
      await writer.post('/v1/leads', validLead({ email: '', phone: '+31 20 123 4567' }))
    ).json();
    expect([first.customerId, samePhone.customerId]).toContain(byPhone.customerId);
    const stranger = (
      await writer.post('/v1/leads', validLead({ email: 'new@example.com', phone: '+31207654321' }))
    ).json();
    expect(stranger.customerId).not.toBe(first.customerId);
  });

  it('links the same address of a customer; a different number is a new address', async () => {
    const email = 'address-test@example.com';
    const a = (
      await writer.post('/v1/leads', validLead({ email, postalCode: '1015 cj', streetNumber: '5' }))
    ).json();
    const b = (
      await writer.post('/v1/leads', validLead({ email, postalCode: '1015CJ', streetNumber: '5' }))
    ).json();
    const c = (
      await writer.post('/v1/leads', validLead({ email, postalCode: '1015CJ', streetNumber: '7' }))
    ).json();
    expect(b.addressId).toBe(a.addressId);
    expect(c.addressId).not.toBe(a.addressId);
  });

  it('does not link customers across brands', async () => {
    const email = 'cross-brand@example.com';
    const mine = (await writer.post('/v1/leads', validLead({ email }))).json();
    const theirs = (await writer.post('/v1/leads', validLead({ email }), { key: ctx.keys.other })).json();
    expect(theirs.customerId).not.toBe(mine.customerId);
    expect(theirs.brandId).toBe(ctx.otherBrandId);
  });

  it('treats empty optional strings and null as absent', async () => {
    const res = await writer.post(
      '/v1/leads',
      validLead({ email: '', phone: '   ', description: null, country: '' }),
    );
    expect(res.statusCode).toBe(201);
    expect(res.json().description).toBeNull();
  });
});
