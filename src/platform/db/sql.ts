// Hand-written SQL for the hot paths (create, list, read one): one text for both dialects, run without building.
//
// Kysely builds and compiles a query object on every call; on a create that was ten statements and about a
// quarter of the CPU time of a request. These statements are written once with `?` placeholders, numbered
// ($1, $2, …) once for PostgreSQL, and executed as they are: through Kysely's connection handling (so they take
// part in its transactions and its SQLite connection lock) or, inside a SQLite group commit, straight on the
// better-sqlite3 handle that lock protects.
import { createHash } from 'node:crypto';
import type SQLite from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import type { DB, Dialect } from './database.js';

/** One SQL text in both dialects' placeholder styles. */
export interface Statement {
  readonly sqlite: string;
  readonly postgres: string;
  /**
   * PostgreSQL plans it for each call's own values: its best plan depends on them (a list's filters and search:
   * how many leads a status or a search term matches). It is sent unnamed. Every other statement is a named
   * prepared statement, which PostgreSQL plans once per connection when that plan is as good as a fresh one
   * (`plan_cache_mode=auto`, its default).
   */
  readonly planPerCall?: boolean;
  /**
   * The most time the statement may take on PostgreSQL outside a transaction (its statement_timeout; the pool's
   * default is 15 s), and the error to throw when it is cancelled for that. SQLite callers bound their own work.
   */
  readonly budget?: StatementBudget;
  /** PostgreSQL's text with `?` placeholders, where it differs from SQLite's (statementPer). */
  readonly postgresText?: string;
}

export interface StatementBudget {
  readonly ms: number;
  exceeded(): Error;
}

const numbered = new Map<string, string>();

/** `?` → `$1`, `$2`, … (the texts here never hold a literal question mark). Cached: texts repeat. */
function toPostgres(text: string): string {
  let out = numbered.get(text);
  if (out === undefined) {
    let n = 0;
    out = text.replace(/\?/g, () => `$${++n}`);
    if (numbered.size < 1000) numbered.set(text, out);
  }
  return out;
}

export function statement(
  text: string,
  options: { planPerCall?: boolean; budget?: StatementBudget | undefined } = {},
): Statement {
  return {
    sqlite: text,
    get postgres() {
      return toPostgres(text);
    },
    ...(options.planPerCall ? { planPerCall: true } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
  };
}

/** A statement whose text differs between the databases (platform/db/internal-keys.ts: how rows are linked). */
export function statementPer(texts: { sqlite: string; postgres: string }): Statement {
  return {
    sqlite: texts.sqlite,
    postgresText: texts.postgres,
    get postgres() {
      return toPostgres(texts.postgres);
    },
  };
}

/** node-postgres's name for a statement: none (the unnamed statement) when it is planned per call. */
export function statementName(s: Statement): { name?: string } {
  return s.planPerCall ? {} : { name: preparedName(s.postgres) };
}

/**
 * Starts the text of a statement whose rows are wanted as their first column's values (see firstColumn): SQLite
 * builds no object per row (a page of 101 list items: ~45 µs instead of ~145 µs) and PostgreSQL's rows come as
 * arrays. The marker is a comment, so any runner can execute the text as it is.
 */
export const FIRST_COLUMN = '/* first column */ ';

/** The first column of each row of a statement whose text starts with FIRST_COLUMN, whichever runner ran it. */
export async function firstColumn<T>(runner: Runner, s: Statement, params: readonly unknown[]): Promise<T[]> {
  const rows = await runner.all<unknown>(s, params);
  // Runners that know the marker give the values; any other gives rows, of which the first column is taken.
  return rows.map((r) =>
    Array.isArray(r) ? r[0] : r !== null && typeof r === 'object' ? Object.values(r)[0] : r,
  ) as T[];
}

/**
 * Inserts of new rows that nothing reads back, as one statement: the first ones as data-modifying CTEs of the
 * last (PostgreSQL runs each exactly once, and checks foreign keys at the end of the statement, so a row may refer
 * to one inserted beside it). One round trip for what were as many. PostgreSQL only: SQLite has no data-modifying
 * CTEs, and its statements cost no round trip.
 */
export function combinedInserts(statements: readonly { s: Statement; params: readonly unknown[] }[]): {
  s: Statement;
  params: unknown[];
} {
  const params: unknown[] = [];
  const texts: string[] = [];
  for (const { s, params: p } of statements) {
    const text = s.postgresText ?? s.sqlite;
    if (!/^insert into /i.test(text) || /\breturning\b/i.test(text))
      throw new Error(`only inserts without RETURNING can be combined: ${text}`);
    texts.push(text);
    params.push(...p);
  }
  const last = texts.pop()!;
  const text = texts.length ? `with ${texts.map((t, i) => `d${i} as (${t})`).join(', ')} ${last}` : last;
  return { s: statement(text), params };
}

/** Runs statements on one database, inside whatever transaction it was made for. */
export interface Runner {
  readonly dialect: Dialect;
  /** Rows of a query (or of a statement with RETURNING). */
  all<R>(s: Statement, params: readonly unknown[]): Promise<R[]>;
  /** Rows changed by an insert, update or delete. */
  run(s: Statement, params: readonly unknown[]): Promise<number>;
}

/** Statements through Kysely: `db` may be the pool/connection or a transaction. */
export function kyselyRunner(db: DB, dialect: Dialect): Runner {
  const text = (s: Statement) => (dialect === 'postgres' ? s.postgres : s.sqlite);
  return {
    dialect,
    async all<R>(s: Statement, params: readonly unknown[]) {
      const result = await db.executeQuery<R>(CompiledQuery.raw(text(s), params as unknown[]));
      return result.rows as R[];
    },
    async run(s, params) {
      const result = await db.executeQuery(CompiledQuery.raw(text(s), params as unknown[]));
      return Number(result.numAffectedRows ?? 0n);
    },
  };
}

const names = new Map<string, string>();

/**
 * A name per SQL text, so each pooled connection parses a statement once and then reuses it (and its plan, where
 * PostgreSQL finds a plan for any values as good as one for the call's own: see Statement.planPerCall).
 */
function preparedName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `li_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    if (names.size < 2000) names.set(text, name);
  }
  return name;
}

/**
 * Statements on PostgreSQL as named prepared statements: without a name node-postgres has the server parse and
 * plan every statement again, which made PostgreSQL's own CPU the limit of a create. `on` is the pool (a
 * statement outside a transaction) or a client checked out for one.
 */
export function postgresRunner(on: pg.Pool | pg.PoolClient): Runner {
  const send = (client: pg.Pool | pg.PoolClient, s: Statement, params: readonly unknown[]) =>
    client.query({
      ...statementName(s),
      text: s.postgres,
      values: params as unknown[],
      ...(s.postgres.startsWith(FIRST_COLUMN) ? { rowMode: 'array' as const } : {}),
    });
  // A statement with a budget runs on a client of its own with that statement_timeout, set back afterwards
  // (a transaction's client keeps the pool's: a budget must not outlive the statement).
  const query = (s: Statement, params: readonly unknown[]) =>
    s.budget && 'totalCount' in on
      ? withinBudget(on, s.budget, (client) => send(client, s, params))
      : send(on, s, params);
  return {
    dialect: 'postgres',
    async all<R>(s: Statement, params: readonly unknown[]) {
      return (await query(s, params)).rows as R[];
    },
    async run(s, params) {
      return (await query(s, params)).rowCount ?? 0;
    },
  };
}

/** Runs `work` on a client of the pool whose statements time out after the budget (57014 → budget.exceeded()). */
async function withinBudget<T>(
  pool: pg.Pool,
  budget: StatementBudget,
  work: (client: pg.PoolClient) => Promise<T>,
) {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(`set statement_timeout = ${Math.max(1, Math.round(budget.ms))}`);
    try {
      return await work(client);
    } catch (error) {
      if ((error as { code?: unknown }).code === '57014') throw budget.exceeded();
      throw error;
    } finally {
      await client.query('reset statement_timeout').catch((error: Error) => {
        broken = error;
      });
    }
  } finally {
    // A client whose timeout could not be set back is closed, not returned to the pool with it.
    client.release(broken ?? false);
  }
}

/** Prepares each SQL text once per connection and keeps it (oldest out first past the bound). */
export class StatementCache {
  private readonly statements = new Map<string, SQLite.Statement>();
  constructor(
    readonly handle: SQLite.Database,
    private readonly size = 500,
  ) {}

  prepare(text: string): SQLite.Statement {
    let prepared = this.statements.get(text);
    if (!prepared) {
      prepared = this.handle.prepare(text);
      if (text.startsWith(FIRST_COLUMN)) prepared.pluck(true);
      if (this.statements.size >= this.size) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(text, prepared);
    }
    return prepared;
  }
}

/**
 * Statements straight on the better-sqlite3 handle. Only for code that holds Kysely's connection lock (see
 * SqliteWriteBatcher): otherwise they could run inside another request's open transaction.
 */
export function sqliteRunner(cache: StatementCache): Runner {
  return {
    dialect: 'sqlite',
    async all<R>(s: Statement, params: readonly unknown[]) {
      return cache.prepare(s.sqlite).all(...params) as R[];
    },
    async run(s, params) {
      return cache.prepare(s.sqlite).run(...params).changes;
    },
  };
}

/** Builds a statement whose shape depends on the request (optional filters), collecting its parameters. */
export class SqlBuilder {
  private text = '';
  private perCall = false;
  private budget: StatementBudget | undefined;
  readonly params: unknown[] = [];

  /** The statement's best plan depends on its values: see Statement.planPerCall. */
  planPerCall(): this {
    this.perCall = true;
    return this;
  }

  /** Appends SQL text as is. */
  sql(text: string): this {
    this.text += text;
    return this;
  }

  /** Appends a placeholder for one value. */
  value(v: unknown): this {
    this.text += '?';
    this.params.push(v);
    return this;
  }

  /** Appends `(?, ?, …)` for a list of values. */
  list(values: readonly unknown[]): this {
    this.text += `(${values.map(() => '?').join(', ')})`;
    this.params.push(...values);
    return this;
  }

  /** Runs the statement within a time budget: see Statement.budget. */
  within(budget: StatementBudget | undefined): this {
    this.budget = budget;
    return this;
  }

  build(): Statement {
    return statement(this.text, { planPerCall: this.perCall, budget: this.budget });
  }
}
