// The in-process limiter: fixed windows of one minute by default, or of the length a caller asks for.
import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter, WINDOW_MS } from '../../src/platform/rate-limit/limiter.js';

const HOUR = 60 * 60 * 1000;
// A fixed clock at 10 minutes and 30 seconds into an hour (and 30 seconds into its minute).
const T = 1_000 * HOUR + 10 * WINDOW_MS + 30_000;

describe('MemoryRateLimiter', () => {
  it('counts one-minute windows by default, restarting at the next minute', async () => {
    const limiter = new MemoryRateLimiter();
    const states = [];
    for (let i = 0; i < 4; i++) states.push(await limiter.hit('a', 3, T));
    expect(states.map((s) => s.allowed)).toEqual([true, true, true, false]);
    expect(states.map((s) => s.remaining)).toEqual([2, 1, 0, 0]);
    expect(states[3]!.resetMs).toBe(30_000);
    expect(await limiter.peek('a', 3, T)).toMatchObject({ remaining: 0, allowed: false });
    expect(await limiter.hit('a', 3, T + 30_000)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('counts an hour window apart from the minute window of the same bucket, and resets it on the hour', async () => {
    const limiter = new MemoryRateLimiter();
    const hour = [];
    for (let i = 0; i < 3; i++) hour.push(await limiter.hit('form:f1', 3, T + i * WINDOW_MS, HOUR));
    expect(hour.map((s) => s.allowed)).toEqual([true, true, true]);
    // Three minutes later, the minute windows have rolled over but the hour still holds every post.
    const fourth = await limiter.hit('form:f1', 3, T + 3 * WINDOW_MS, HOUR);
    expect(fourth).toMatchObject({ allowed: false, remaining: 0, limit: 3 });
    expect(fourth.resetMs).toBe(HOUR - (13 * WINDOW_MS + 30_000));
    expect(await limiter.peek('form:f1', 3, T + 3 * WINDOW_MS, HOUR)).toMatchObject({ allowed: false });
    // The same bucket's one-minute count is its own.
    expect(await limiter.hit('form:f1', 3, T + 3 * WINDOW_MS)).toMatchObject({ allowed: true, remaining: 2 });
    // The next hour starts again.
    const nextHour = T - 10 * WINDOW_MS - 30_000 + HOUR;
    expect(await limiter.hit('form:f1', 3, nextHour, HOUR)).toMatchObject({ allowed: true, remaining: 2 });
    expect((await limiter.peek('form:f1', 3, nextHour, HOUR)).resetMs).toBe(HOUR);
  });
});
