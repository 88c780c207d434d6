// Periodic jobs (src/platform/queue/periodic-job.ts, job_leases): with several instances on one database the
// clean-up round runs on one at a time, once a round; when the instance running it dies, another takes it over
// once the lease runs out, never inside it (issue 32).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimJobLease, finishJobLease, renewJobLease } from '../../src/platform/db/lease.js';
import { PeriodicJob } from '../../src/platform/queue/periodic-job.js';
import { createTestContext, dialects, type TestContext } from '../helpers.js';

describe.each(dialects())('periodic jobs on %s', (dialect) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
  });
  afterAll(async () => ctx?.close());
  const db = () => ctx.app.deps.database;

  it('lets one instance take a due job; the others wait for its lease and for the next round', async () => {
    const name = `job-${Date.now()}`;
    const t = Date.now();
    expect(await claimJobLease(db(), name, 'a', 1000, t)).toBe(true);
    // Held: nobody else, not even at the lease's last millisecond.
    expect(await claimJobLease(db(), name, 'b', 1000, t + 1)).toBe(false);
    expect(await claimJobLease(db(), name, 'b', 1000, t + 999)).toBe(false);
    // Renewed while running: still held past the first end.
    expect(await renewJobLease(db(), name, 'a', t + 5000)).toBe(true);
    expect(await claimJobLease(db(), name, 'b', 1000, t + 2000)).toBe(false);
    // Done: free, but not due again before its next round.
    await finishJobLease(db(), name, 'a', t + 60_000);
    expect(await claimJobLease(db(), name, 'b', 1000, t + 3000)).toBe(false);
    expect(await claimJobLease(db(), name, 'b', 1000, t + 60_000)).toBe(true);
    // Someone no longer holding it cannot renew or finish it.
    expect(await renewJobLease(db(), name, 'a', t + 90_000)).toBe(false);
    await finishJobLease(db(), name, 'a', t + 10 * 60_000);
    expect(await claimJobLease(db(), name, 'c', 1000, t + 60_500)).toBe(false);
  });

  it('is taken over once the lease of an instance that died runs out, and runs once per round', async () => {
    const name = `clean-up-${Date.now()}`;
    let now = Date.now();
    const clock = () => now;
    const runs: string[] = [];
    const instance = (label: string) =>
      new PeriodicJob({
        store: db(),
        name,
        intervalMs: 10 * 60_000,
        leaseMs: 30_000,
        clock,
        log: ctx.app.log,
        run: async () => {
          runs.push(label);
        },
      });
    const a = instance('a');
    const b = instance('b');
    // Both try at once: one runs it.
    const ran = await Promise.all([a.tick(), b.tick()]);
    expect(ran.filter(Boolean)).toHaveLength(1);
    expect(runs).toHaveLength(1);
    // Neither runs it again within the round.
    now += 5 * 60_000;
    expect(await a.tick()).toBe(false);
    expect(await b.tick()).toBe(false);
    // The next round: a third instance takes it and dies while running (its lease is never freed).
    now += 5 * 60_000 + 1;
    const dead = 'dead-instance';
    expect(await claimJobLease(db(), name, dead, 30_000, now)).toBe(true);
    now += 29_999;
    expect(await b.tick()).toBe(false);
    now += 2;
    expect(await b.tick()).toBe(true);
    expect(runs).toEqual([runs[0], 'b']);
    await a.stop();
    await b.stop();
  });
});
