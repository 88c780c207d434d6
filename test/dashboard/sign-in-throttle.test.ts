// The sign-in throttle with an injected clock: growing delays per (account, address) pair, no waiting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADDRESS_FAILURES,
  FAILURES_BEFORE_DELAY,
  MAX_DELAY_MS,
  PAIR_MEMORY_MS,
  pairDelayMs,
  signIn,
} from '../../src/accounts/sign-in.js';
import type { Database } from '../../src/platform/db/database.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';
import { addUser, PASSWORD } from './helpers.js';

describe('pairDelayMs', () => {
  it('is free for 5 failures, then 1 s, 2 s, 4 s … doubling, at most 15 minutes', () => {
    expect([0, 1, 4].map((n) => pairDelayMs(n))).toEqual([0, 0, 0]);
    expect([5, 6, 7, 8, 9].map((n) => pairDelayMs(n))).toEqual([1000, 2000, 4000, 8000, 16_000]);
    expect(pairDelayMs(14)).toBe(512_000);
    expect(pairDelayMs(15)).toBe(MAX_DELAY_MS);
    expect(pairDelayMs(10_000)).toBe(MAX_DELAY_MS);
    // With the address over its cap, from the first failure.
    expect([0, 1, 2, 3].map((n) => pairDelayMs(n, 1))).toEqual([0, 1000, 2000, 4000]);
  });
});

describe.each(dialects())('sign-in throttle on %s', (dialect) => {
  let ctx: TestContext;
  let database: Database;
  let email: string;
  let n = 0;
  const T0 = Date.now();

  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    database = ctx.app.deps.database;
    email = (await addUser(ctx.app, ctx.brandId, 'owner@acme.example')).email;
  });
  afterAll(async () => ctx?.close());

  /** A fresh address per test, so tests never share failures. */
  const address = () => `10.20.0.${++n}`;
  const attempt = (from: string, password: string, at: number, who = email) =>
    signIn(database, { email: who, password, address: from }, at);

  it('each failure after the fifth doubles the wait, counted from the last failure', async () => {
    const a = address();
    for (let i = 0; i < FAILURES_BEFORE_DELAY; i++)
      expect((await attempt(a, 'wrong', T0)).outcome).toBe('wrong');
    let last = T0;
    for (const delay of [1000, 2000, 4000, 8000]) {
      // One millisecond early: refused without checking the password, and not counted.
      expect(await attempt(a, PASSWORD, last + delay - 1)).toEqual({
        outcome: 'throttled',
        retryAfterSeconds: 1,
      });
      expect(await attempt(a, 'wrong', last + 1)).toEqual({
        outcome: 'throttled',
        retryAfterSeconds: Math.ceil((delay - 1) / 1000),
      });
      last += delay;
      expect((await attempt(a, 'wrong', last)).outcome).toBe('wrong');
    }
    // 9 failures: 16 s. The correct password once that has passed signs in, and clears the pair.
    expect(await attempt(a, PASSWORD, last + 15_000)).toEqual({ outcome: 'throttled', retryAfterSeconds: 1 });
    expect((await attempt(a, PASSWORD, last + 16_000)).outcome).toBe('signed-in');
    for (let i = 0; i < FAILURES_BEFORE_DELAY; i++) {
      expect((await attempt(a, 'wrong', last + 16_001)).outcome).toBe('wrong');
    }
    expect((await attempt(a, PASSWORD, last + 16_001)).outcome).toBe('throttled');
  });

  it('waits at most 15 minutes, and forgets a pair’s failures after a day', async () => {
    const a = address();
    await database.db
      .insertInto('sign_in_failures')
      .values(Array.from({ length: 40 }, () => ({ subject: `pair:${a}|${email}`, at: T0 })))
      .execute();
    expect(await attempt(a, PASSWORD, T0)).toEqual({ outcome: 'throttled', retryAfterSeconds: 900 });
    expect((await attempt(a, PASSWORD, T0 + MAX_DELAY_MS - 1000)).outcome).toBe('throttled');
    // A failure after the wait starts a new 15 minutes.
    expect((await attempt(a, 'wrong', T0 + MAX_DELAY_MS)).outcome).toBe('wrong');
    expect(await attempt(a, PASSWORD, T0 + MAX_DELAY_MS + 1000)).toEqual({
      outcome: 'throttled',
      retryAfterSeconds: 899,
    });
    // A day after the last failure the pair starts again with 5 free attempts.
    const dayLater = T0 + MAX_DELAY_MS + PAIR_MEMORY_MS + 1;
    for (let i = 0; i < FAILURES_BEFORE_DELAY; i++)
      expect((await attempt(a, 'wrong', dayLater)).outcome).toBe('wrong');
    expect((await attempt(a, 'wrong', dayLater)).outcome).toBe('throttled');
  });

  it('failures from one address never delay the same account from another', async () => {
    const attacker = address();
    const owner = address();
    for (let i = 0; i < 8; i++) await attempt(attacker, 'wrong', T0 + i * 60_000);
    expect((await attempt(attacker, PASSWORD, T0 + 7 * 60_000 + 1)).outcome).toBe('throttled');
    expect((await attempt(owner, PASSWORD, T0 + 7 * 60_000 + 1)).outcome).toBe('signed-in');
    // The owner's success elsewhere leaves the attacker's pair as it was.
    expect((await attempt(attacker, PASSWORD, T0 + 7 * 60_000 + 2)).outcome).toBe('throttled');
  });

  // Two dozen accounts and their password checks: on a loaded two-core CI machine this can pass 30 s.
  it('an address over its cap across accounts: delays from the first failure; an account without failures still signs in', async () => {
    const sprayer = address();
    // Real accounts (cheap test hashes): unknown emails would each cost a full-strength decoy hash.
    for (let i = 0; i < ADDRESS_FAILURES; i++) await addUser(ctx.app, ctx.brandId, `user${i}@acme.example`);
    for (const other of ['someone@acme.example', 'fresh@acme.example'])
      await addUser(ctx.app, ctx.brandId, other);
    for (let i = 0; i < ADDRESS_FAILURES; i++) {
      expect((await attempt(sprayer, 'Summer2026!', T0, `user${i}@acme.example`)).outcome).toBe('wrong');
    }
    const next = 'someone@acme.example';
    expect((await attempt(sprayer, 'Summer2026!', T0, next)).outcome).toBe('wrong');
    expect(await attempt(sprayer, 'Winter2026!', T0 + 999, next)).toEqual({
      outcome: 'throttled',
      retryAfterSeconds: 1,
    });
    expect((await attempt(sprayer, 'Winter2026!', T0 + 1000, next)).outcome).toBe('wrong');
    expect((await attempt(sprayer, 'Autumn2026!', T0 + 2999, next)).outcome).toBe('throttled');
    // The owner behind the same address, no failures of their own from it: signed in.
    expect((await attempt(sprayer, PASSWORD, T0 + 3000)).outcome).toBe('signed-in');
    // 15 minutes later the address is under its cap again: five free attempts for a new account.
    const quiet = T0 + 15 * 60_000 + 1;
    for (let i = 0; i < FAILURES_BEFORE_DELAY; i++) {
      expect((await attempt(sprayer, 'x', quiet, 'fresh@acme.example')).outcome).toBe('wrong');
    }
  }, 120_000);
});
