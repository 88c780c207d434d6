// Records what node-postgres is asked to run: every Client#query call's config (a text, a config object or a
// query object of its own, as src/platform/db/pg-transaction.ts sends), while `sentBy` runs. Installed once per process
// on the prototype, before any pool connects (each connection wraps the query method it finds then:
// sendQueriesWhole in src/platform/db/database.ts).
import { createRequire } from 'node:module';
import type pg from 'pg';

export type SentQuery = {
  text: string;
  name?: string;
  /** A command sent before or after the statement in the same messages (pg-transaction.ts). */
  before?: string;
  after?: string;
  /** Statements sent after it in the same messages, before the one Sync (Tx.pipeline). */
  following?: { text: string; name?: string }[];
};

let recording: SentQuery[] | undefined;
const INSTALLED = Symbol.for('lead-intake.test.pg-queries');
const { Client } = createRequire(import.meta.url)('pg') as typeof pg;
const proto = Client.prototype as unknown as Record<symbol, boolean> & {
  query: (...a: unknown[]) => unknown;
};
if (!proto[INSTALLED]) {
  proto[INSTALLED] = true;
  const original = proto.query;
  proto.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | SentQuery;
    recording?.push(
      typeof config === 'string'
        ? { text: config }
        : {
            text: config.text,
            name: config.name,
            before: config.before,
            after: config.after,
            ...(config.following
              ? { following: config.following.map(({ text, name }) => ({ text, name })) }
              : {}),
          },
    );
    return original.apply(this, args);
  };
}

/** The queries node-postgres was asked to run while `fn` ran. */
export async function sentBy(fn: () => Promise<unknown>): Promise<SentQuery[]> {
  recording = [];
  try {
    await fn();
    return recording;
  } finally {
    recording = undefined;
  }
}
