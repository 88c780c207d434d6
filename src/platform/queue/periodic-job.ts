// A job every instance would otherwise run on its own timer (the clean-up round: expired idempotency keys, old
// spam, unused stored files, retention), run by one instance at a time through its lease in job_leases (lease.ts):
// each instance tries every POLL_MS; the one that takes the lease runs the job, renews the lease while it runs and
// sets when it is next due. If that instance dies, its lease runs out within LEASE_MS and the next instance to try
// runs the job (issue 32: taken over within the lease, never twice inside one).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import { claimJobLease, finishJobLease, renewJobLease } from '../db/lease.js';
import type { Store } from '../db/store.js';

/** How long a lease lasts without renewal: the longest another instance waits after one dies. */
export const JOB_LEASE_MS = 30_000;
/** How often each instance tries to take a due job. */
const POLL_MS = 15_000;

export interface PeriodicJobOptions {
  store: Store;
  /** The job's row in job_leases. */
  name: string;
  /** From the end of one run to the next. */
  intervalMs: number;
  run: () => Promise<void>;
  log: FastifyBaseLogger;
  clock?: () => number;
  /** Overrides for tests. */
  leaseMs?: number;
  pollMs?: number;
}

export class PeriodicJob {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: PeriodicJobOptions) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.tick(), this.options.pollMs ?? POLL_MS);
    this.timer.unref();
  }

  /** Tries once: runs the job when it is due and this instance takes its lease. True when it ran. */
  async tick(): Promise<boolean> {
    if (this.running || this.stopped) return false;
    const { store, name, log } = this.options;
    const now = this.now();
    const leaseMs = this.options.leaseMs ?? JOB_LEASE_MS;
    let claimed: boolean;
    try {
      claimed = await claimJobLease(store, name, this.owner, leaseMs, now);
    } catch (error) {
      log.warn({ err: error, job: name }, 'could not take the lease of a periodic job');
      return false;
    }
    if (!claimed) return false;
    const run = this.runHeld(leaseMs);
    this.running = run;
    try {
      await run;
    } finally {
      this.running = undefined;
    }
    return true;
  }

  private async runHeld(leaseMs: number): Promise<void> {
    const { store, name, log, intervalMs } = this.options;
    const renew = setInterval(() => {
      renewJobLease(store, name, this.owner, this.now() + leaseMs).catch((error) =>
        log.warn({ err: error, job: name }, 'could not renew the lease of a periodic job'),
      );
    }, leaseMs / 3);
    renew.unref();
    try {
      await this.options.run();
    } catch (error) {
      log.error({ err: error, job: name }, 'a periodic job failed; it runs again next round');
    } finally {
      clearInterval(renew);
      await finishJobLease(store, name, this.owner, this.now() + intervalMs).catch((error) =>
        log.warn({ err: error, job: name }, 'could not free the lease of a periodic job'),
      );
    }
  }

  /** Stops trying; waits for a run in progress to finish (it frees its lease). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }
}
