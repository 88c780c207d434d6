// Real deliveries (the worker POSTing to a receiver on 127.0.0.1) verified with the receivers' own libraries:
// standardwebhooks' Webhook(secret).verify against the webhook-* headers, and stripe's webhooks.constructEvent
// against Lead-Intake-Signature. Nothing here reaches the internet: the Stripe client only verifies locally.
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterEach, describe, expect, it } from 'vitest';
import { dialects, TEST_WEBHOOKS, waitFor } from '../helpers.js';
import { type Received, type Receiver, startReceiver } from '../receiver.js';
import { useTestContext } from '../test-context.js';

const LEAD_EVENTS = ['lead.created', 'lead.status_changed'];
const stripe = new Stripe('sk_test_not_used_no_requests_are_made');

const standardHeaders = (request: Received) => ({
  'webhook-id': request.headers['webhook-id'] as string,
  'webhook-timestamp': request.headers['webhook-timestamp'] as string,
  'webhook-signature': request.headers['webhook-signature'] as string,
});

describe.each(dialects())('deliveries verified by standardwebhooks and stripe on %s', (dialect) => {
  const ctx = useTestContext(dialect, { webhooks: TEST_WEBHOOKS });
  let receiver: Receiver;
  afterEach(async () => {
    await ctx.app.deps.database.db.deleteFrom('webhook_endpoints').execute();
    await receiver?.close();
  });

  const createEndpoint = async () => {
    const res = await ctx.api.post('/v1/webhook-endpoints', { url: receiver.url(), events: LEAD_EVENTS });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; secret: string };
  };

  const latestEventId = async () => (await ctx.api.get('/v1/events?limit=1')).json().data[0].id as string;

  /** The requests for the next lead's lead.created event, once `count` have arrived. */
  const deliveryOfNewLead = async (count = 1) => {
    await ctx.createLead();
    const eventId = await latestEventId();
    const requests = await waitFor(
      () => receiver.forEvent(eventId).length >= count && receiver.forEvent(eventId),
      'delivery',
    );
    return { eventId, requests };
  };

  const expectBothLibrariesAccept = (request: Received, secret: string, eventId: string) => {
    const event = new Webhook(secret).verify(request.body, standardHeaders(request));
    expect(event).toMatchObject({ id: eventId, type: 'lead.created' });
    const stripeEvent = stripe.webhooks.constructEvent(
      request.body,
      request.headers['lead-intake-signature'] as string,
      secret,
    );
    expect(stripeEvent).toMatchObject({ id: eventId, type: 'lead.created' });
  };

  it('every delivery carries webhook-id, webhook-timestamp and webhook-signature; both libraries verify', async () => {
    receiver = await startReceiver();
    const endpoint = await createEndpoint();
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const { eventId, requests } = await deliveryOfNewLead();
    const [request] = requests;
    expect(request!.headers['webhook-id']).toBe(eventId);
    expect(request!.headers['lead-intake-event-id']).toBe(eventId);
    const timestamp = request!.headers['webhook-timestamp'] as string;
    expect(timestamp).toMatch(/^\d+$/);
    expect(request!.headers['lead-intake-signature']).toMatch(new RegExp(`^t=${timestamp},v1=[0-9a-f]{64}$`));
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expectBothLibrariesAccept(request!, endpoint.secret, eventId);

    // A changed body, or another secret, fails with each library.
    const tampered = { ...request!, body: request!.body.replace('lead.created', 'lead.deleted') };
    expect(() => new Webhook(endpoint.secret).verify(tampered.body, standardHeaders(tampered))).toThrow();
    expect(() =>
      stripe.webhooks.constructEvent(
        tampered.body,
        tampered.headers['lead-intake-signature'] as string,
        endpoint.secret,
      ),
    ).toThrow();
    const stranger = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    expect(() => new Webhook(stranger).verify(request!.body, standardHeaders(request!))).toThrow();
    expect(() =>
      stripe.webhooks.constructEvent(
        request!.body,
        request!.headers['lead-intake-signature'] as string,
        stranger,
      ),
    ).toThrow();
  });

  it('a resent delivery is signed afresh, with the same webhook-id', async () => {
    receiver = await startReceiver();
    const endpoint = await createEndpoint();
    const { eventId } = await deliveryOfNewLead();
    const first = await waitFor(async () => {
      const list = (await ctx.api.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`)).json().data;
      const delivery = list.find((d: { eventId: string }) => d.eventId === eventId);
      return delivery?.status === 'succeeded' && (delivery as { id: string });
    }, 'first delivery');
    const res = await ctx.api.post(`/v1/webhook-endpoints/${endpoint.id}/deliveries/${first.id}/resend`);
    expect(res.statusCode).toBe(202);
    const [, again] = await waitFor(
      () => receiver.forEvent(eventId).length === 2 && receiver.forEvent(eventId),
      'the resent delivery',
    );
    expect(again!.headers['webhook-id']).toBe(eventId);
    expectBothLibrariesAccept(again!, endpoint.secret, eventId);
  });

  it('during a rotation both the new and the previous secret verify, with each library', async () => {
    receiver = await startReceiver();
    const endpoint = await createEndpoint();
    const rotated = await ctx.api.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    const { secret } = rotated.json() as { secret: string };
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secret).not.toBe(endpoint.secret);
    const { eventId, requests } = await deliveryOfNewLead();
    const [request] = requests;
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    expect(request!.headers['lead-intake-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expectBothLibrariesAccept(request!, secret, eventId);
    expectBothLibrariesAccept(request!, endpoint.secret, eventId);
  });

  it('an earlier base64url secret still signs Lead-Intake-Signature, gets no webhook-signature, and rotates to the new format', async () => {
    receiver = await startReceiver();
    const endpoint = await createEndpoint();
    // A secret as issued before: whsec_ + base64url (with - and _, no padding), not decodable as standard base64.
    const legacy = `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`;
    await ctx.app.deps.database.db
      .updateTable('webhook_endpoints')
      .set({ secret: legacy })
      .where('id', '=', endpoint.id)
      .execute();
    const before = await deliveryOfNewLead();
    const [old] = before.requests;
    expect(old!.headers['webhook-id']).toBe(before.eventId);
    expect(old!.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(old!.headers['webhook-signature']).toBeUndefined();
    expect(
      stripe.webhooks.constructEvent(old!.body, old!.headers['lead-intake-signature'] as string, legacy),
    ).toMatchObject({ id: before.eventId });

    const { secret } = (await ctx.api.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`)).json();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const after = await deliveryOfNewLead();
    const [request] = after.requests;
    // Only the new secret has a Standard Webhooks key; Lead-Intake-Signature carries both.
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expectBothLibrariesAccept(request!, secret, after.eventId);
    expect(
      stripe.webhooks.constructEvent(
        request!.body,
        request!.headers['lead-intake-signature'] as string,
        legacy,
      ),
    ).toMatchObject({ id: after.eventId });
  });
});
