import type { Kysely } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * The periodic jobs every instance runs (issue 32: clean-up, spam, unused files, retention) take a lease of their
 * own, so with several instances one runs each round and another takes over within the lease when it dies: a row
 * per job with who holds it, until when, and when it is next due. Expand only.
 */
export function migration(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('job_leases')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('owner', 'text')
        .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('next_run_at', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
