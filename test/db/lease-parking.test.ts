// Leased queues (src/platform/db/lease.ts): a row whose holder died with the lease is taken up again, counted, and
// parked after PARK_AFTER_CRASHES such claims in a row, shown as failed with the reason; a row handed back or run
// to a result does not count; a live holder's heartbeat keeps its row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  listFailedEmails,
  outboxQueue,
  queueEmail,
  recordEmailAttempt,
  releaseEmailLease,
} from '../../src/mail/outbox.js';
import { PARK_AFTER_CRASHES, PARKED_REASON } from '../../src/platform/db/lease.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';

describe.each(dialects())('parking jobs that kill their worker on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    // Email off: no mail worker claims the rows this test claims by hand.
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => ctx?.close());

  const queue = (subject: string) =>
    ctx.app.deps.database.write((tx) =>
      queueEmail(tx, {
        brandId: ctx.brandId,
        kind: 'new_lead',
        recipient: 'office@example.com',
        subject,
        text: 'text',
        html: '<p>html</p>',
      }),
    );
  const row = (id: string) =>
    ctx.app.deps.database.db
      .selectFrom('email_outbox')
      .select(['status', 'crashes', 'lease_owner', 'last_error'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const claim = (owner: string, now: number, leaseMs = 10) =>
    outboxQueue.claimDue(ctx.app.deps.database, owner, 10, leaseMs, now);

  it(`parks a row after ${PARK_AFTER_CRASHES} holders in a row died with it, and shows it as failed`, async () => {
    const id = await queue('kills its worker');
    let now = Date.now() + 1000;
    expect(await claim('w1', now)).toContain(id);
    for (let crash = 1; crash < PARK_AFTER_CRASHES; crash++) {
      now += 20;
      // The last holder's lease ran out without a result: taken up again, counted.
      expect(await claim(`w${crash + 1}`, now)).toContain(id);
      expect(await row(id)).toMatchObject({ status: 'pending', crashes: crash });
    }
    now += 20;
    expect(await claim('wlast', now)).not.toContain(id);
    expect(await row(id)).toMatchObject({
      status: 'failed',
      crashes: PARK_AFTER_CRASHES,
      lease_owner: null,
      last_error: PARKED_REASON,
    });
    const failed = await listFailedEmails(ctx.app.deps.database, ctx.brandId);
    expect(failed.map((f) => f.id)).toContain(id);
    // Nobody takes it up again.
    expect(await claim('wnext', now + 1000)).not.toContain(id);
  });

  it('does not count a row handed back at shutdown, and a recorded attempt clears the count', async () => {
    const id = await queue('handed back');
    let now = Date.now() + 1000;
    expect(await claim('w1', now)).toContain(id);
    now += 20;
    expect(await claim('w2', now)).toContain(id);
    expect((await row(id)).crashes).toBe(1);
    await releaseEmailLease(ctx.app.deps.database, 'w2', id);
    expect(await claim('w3', now + 1)).toContain(id);
    expect((await row(id)).crashes).toBe(1);
    const job = { id, attempt: 0, createdAt: now } as Parameters<typeof recordEmailAttempt>[2];
    const status = await recordEmailAttempt(
      ctx.app.deps.database,
      'w3',
      job,
      { ok: false, error: '451 try later', permanent: false, at: now + 2 },
      { retryBaseMs: 10, retryWindowMs: 60_000 } as Parameters<typeof recordEmailAttempt>[4],
    );
    expect(status).toBe('pending');
    expect(await row(id)).toMatchObject({ status: 'pending', crashes: 0, lease_owner: null });
  });

  it('leaves a row to its holder while the holder renews the lease', async () => {
    const id = await queue('long send');
    const now = Date.now() + 1000;
    expect(await claim('alive', now, 100)).toContain(id);
    await outboxQueue.renew(ctx.app.deps.database, 'alive', [id], 100, now + 90);
    expect(await claim('other', now + 150)).not.toContain(id);
    expect(await claim('other', now + 250)).toContain(id);
  });
});
