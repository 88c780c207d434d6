// A PostgreSQL write's transaction without round trips of its own: BEGIN goes to the server with the
// transaction's first statement and COMMIT with its last (the deferred inserts, see Tx.defer).
//
// node-postgres sends a statement with parameters as Parse, Bind, Describe, Execute and Sync, and waits for the
// ReadyForQuery that answers the Sync. The server runs the messages before a Sync in order, and an error makes it
// skip the rest up to the Sync (the extended query protocol). So BEGIN sent as Parse/Bind/Execute ahead of a
// statement's own messages opens the transaction in the same round trip, and COMMIT sent after them, before the
// Sync, runs only if the statement succeeded: if it failed, the transaction is left aborted, and the caller rolls
// it back as it would have. node-postgres hands back one result per command (as for a multi-statement simple
// query); the statement's own is picked out.
//
// Statements that follow one another without waiting for each other's answer (Tx.pipeline: a create's
// brand-with-locks and customer) go the same way: each one's Parse/Bind/Describe/Execute after the first's, all
// before the one Sync. The server still runs them as separate statements, in order, each with a snapshot of its
// own (read committed): one sent after a statement that waited for a lock sees what was committed under it.
//
// This relies on node-postgres's Query (its prepare and _getRows steps) and its connection's parse, bind, describe,
// execute and sync writers: the pg version is pinned by the lockfile, and test/db/pg-transaction.test.ts covers each path.
import { createRequire } from 'node:module';
import type pg from 'pg';
import { FIRST_COLUMN, type Runner, type Statement, statementName } from './sql.js';

interface ProtocolWriter {
  parse(message: { text: string; name?: string }): void;
  bind(message: { statement?: string; values?: unknown[] }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal?: string; rows?: number }): void;
  sync(): void;
  /** node-postgres's bookkeeping of the named statements this connection has parsed (or sent to be parsed). */
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  on(event: 'parseComplete', listener: () => void): void;
  off(event: 'parseComplete', listener: () => void): void;
}

/** A statement sent after the query's own in the same messages: its name and text, its values already prepared. */
interface Following {
  name?: string;
  text: string;
  values: unknown[];
}

type Command = 'begin' | 'commit';
type Callback = (error: Error | null, result?: pg.QueryResult | pg.QueryResult[]) => void;
type WrappedQuery = {
  before?: Command;
  after?: Command;
  following?: Following[];
  settle?: (failed: boolean) => void;
};
type WrappedQueryClass = new (
  config: pg.QueryConfig & { rowMode?: 'array' },
  values: undefined,
  callback: Callback,
) => WrappedQuery;

let wrappedQueryClass: WrappedQueryClass | undefined;

/** node-postgres's Query, with a command sent before its statement and/or one after it, before the Sync. */
function wrappedQuery(pgModule: typeof pg): WrappedQueryClass {
  if (wrappedQueryClass) return wrappedQueryClass;
  const Query = pgModule.Query as unknown as new (
    ...args: unknown[]
  ) => {
    prepare(connection: ProtocolWriter): void;
    _getRows(connection: ProtocolWriter, rows?: number): void;
    portal?: string;
  };
  const sendCommand = (connection: ProtocolWriter, text: Command) => {
    connection.parse({ text });
    connection.bind({});
    connection.execute({});
  };
  /** The following statement's Parse (when `parse`), Bind, Describe and Execute. */
  const sendFollowing = (connection: ProtocolWriter, s: Following, parse: boolean) => {
    if (parse) connection.parse({ text: s.text, ...(s.name === undefined ? {} : { name: s.name }) });
    connection.bind({ ...(s.name === undefined ? {} : { statement: s.name }), values: s.values });
    connection.describe({ type: 'P', name: '' });
    connection.execute({});
  };
  class Wrapped extends Query {
    before?: Command;
    after?: Command;
    following?: Following[];
    /** Whether each following statement is parsed by this query's messages (set by prepare). */
    private parses: boolean[] = [];
    /** Ends the following statements' parse bookkeeping once the query is answered (set by prepare). */
    settle?: (failed: boolean) => void;
    declare name?: string;
    declare hasBeenParsed: (connection: ProtocolWriter) => boolean;
    override prepare(connection: ProtocolWriter): void {
      if (this.following?.length) this.bookParses(connection);
      if (this.before) sendCommand(connection, this.before);
      super.prepare(connection);
    }
    /**
     * node-postgres books only the query's own statement name as parsed. A following statement's name is booked
     * as sent to be parsed now, and as parsed when its ParseComplete comes (ParseCompletes come in the order of
     * the Parses); if an error made the server skip its Parse, the booking is undone, so the next use parses it.
     */
    private bookParses(connection: ProtocolWriter): void {
      const known = (name: string | undefined) =>
        name !== undefined &&
        (connection.parsedStatements[name] !== undefined ||
          connection.submittedNamedStatements[name] !== undefined);
      // The Parses this query's messages hold, in order: BEGIN's, its own statement's, the following ones'.
      let parses = (this.before ? 1 : 0) + (this.hasBeenParsed(connection) ? 0 : 1);
      const booked = new Map<number, string>();
      const sending = new Set<string>(this.name !== undefined ? [this.name] : []);
      this.parses = (this.following ?? []).map((s) => {
        if (known(s.name) || (s.name !== undefined && sending.has(s.name))) return false;
        parses++;
        if (s.name !== undefined) {
          sending.add(s.name);
          booked.set(parses, s.name);
          connection.submittedNamedStatements[s.name] = s.text;
        }
        return true;
      });
      let seen = 0;
      const onParse = () => {
        const name = booked.get(++seen);
        if (name === undefined) return;
        booked.delete(seen);
        connection.parsedStatements[name] = connection.submittedNamedStatements[name] ?? '';
        delete connection.submittedNamedStatements[name];
      };
      connection.on('parseComplete', onParse);
      this.settle = (failed) => {
        connection.off('parseComplete', onParse);
        if (failed) for (const name of booked.values()) delete connection.submittedNamedStatements[name];
      };
    }
    override _getRows(connection: ProtocolWriter, rows?: number): void {
      if ((!this.after && !this.following?.length) || rows) {
        super._getRows(connection, rows);
        return;
      }
      connection.execute({ portal: this.portal ?? '' });
      for (const [i, s] of (this.following ?? []).entries())
        sendFollowing(connection, s, this.parses[i] === true);
      if (this.after) sendCommand(connection, this.after);
      connection.sync();
    }
  }
  wrappedQueryClass = Wrapped as unknown as WrappedQueryClass;
  return wrappedQueryClass;
}

/** The statements' own results among those of the commands sent with them, in order. */
function ownResults(result: pg.QueryResult | pg.QueryResult[] | undefined): pg.QueryResult[] {
  if (!Array.isArray(result)) return [result as pg.QueryResult];
  const own = result.filter((r) => r.command !== 'BEGIN' && r.command !== 'COMMIT');
  return own.length ? own : [result[0] as pg.QueryResult];
}

let prepareValueOf: ((value: unknown) => unknown) | undefined;
/** node-postgres's own mapping of a parameter to what goes on the wire (what its Query's Bind applies). */
function prepareValue(): (value: unknown) => unknown {
  prepareValueOf ??= (
    createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(value: unknown): unknown }
  ).prepareValue;
  return prepareValueOf;
}

/** The statements of one write on the client it holds; BEGIN and COMMIT ride along with them. */
export class PostgresTransactionRunner implements Runner {
  readonly dialect = 'postgres' as const;
  /** BEGIN was sent: the connection is (or was) in the transaction, and must be rolled back if the write fails. */
  begun = false;
  private readonly Query: WrappedQueryClass;

  constructor(
    private readonly client: pg.PoolClient,
    pgModule: typeof pg,
  ) {
    this.Query = wrappedQuery(pgModule);
  }

  private send(s: Statement, params: readonly unknown[], after?: Command): Promise<pg.QueryResult> {
    return this.sendAll(s, params, [], after).then((results) => results[0]!);
  }

  /** The statement, then `following`, in one round trip: each one's result, in order. */
  private sendAll(
    s: Statement,
    params: readonly unknown[],
    following: readonly { s: Statement; params: readonly unknown[] }[],
    after?: Command,
  ): Promise<pg.QueryResult[]> {
    // Every value is made wire-ready first (node-postgres's own mapping, which its Bind then finds done): a value
    // that cannot be sent fails here, before anything is sent. Left to node-postgres's Bind, it would fail halfway
    // through the messages, and node-postgres would close the named statement on the server while still counting
    // it as parsed, so every later use of it on that connection failed ("prepared statement … does not exist").
    const prepare = prepareValue();
    const values = params.map((v) => prepare(v));
    const next: Following[] = following.map((f) => {
      if (f.s.postgres.startsWith(FIRST_COLUMN)) throw new Error('a following statement gives whole rows');
      return { ...statementName(f.s), text: f.s.postgres, values: f.params.map((v) => prepare(v)) };
    });
    const before: Command | undefined = this.begun ? undefined : 'begin';
    this.begun = true;
    return new Promise((resolve, reject) => {
      const query = new this.Query(
        {
          ...statementName(s),
          text: s.postgres,
          values,
          ...(s.postgres.startsWith(FIRST_COLUMN) ? { rowMode: 'array' as const } : {}),
        },
        undefined,
        (error, result) => {
          query.settle?.(error !== null);
          if (error) reject(error);
          else resolve(ownResults(result));
        },
      );
      query.before = before;
      query.after = after;
      if (next.length) query.following = next;
      this.client.query(query as unknown as pg.QueryConfig);
    });
  }

  /**
   * The statements' rows, each sent after the one before without waiting for its answer: one round trip. The
   * server runs them one after another, each a statement of its own (with its own snapshot), and none after one
   * that failed. Deferred inserts are not this runner's: the Transaction sends them first.
   */
  async pipeline(statements: readonly { s: Statement; params: readonly unknown[] }[]): Promise<unknown[][]> {
    const [first, ...rest] = statements;
    if (!first) return [];
    return (await this.sendAll(first.s, first.params, rest)).map((r) => r.rows);
  }

  async all<R>(s: Statement, params: readonly unknown[]): Promise<R[]> {
    return (await this.send(s, params)).rows as R[];
  }

  async run(s: Statement, params: readonly unknown[]): Promise<number> {
    return (await this.send(s, params)).rowCount ?? 0;
  }

  /** Opens the transaction now, if no statement has: for queries sent another way (Kysely on the same client). */
  async begin(): Promise<void> {
    if (this.begun) return;
    this.begun = true;
    await this.client.query('begin');
  }

  /**
   * Commits: `last` (the deferred inserts) and COMMIT in one round trip, or COMMIT alone. A write that sent
   * nothing has nothing to commit.
   */
  async commit(last?: { s: Statement; params: readonly unknown[] }): Promise<void> {
    if (last) await this.send(last.s, last.params, 'commit');
    else if (this.begun) await this.client.query('commit');
  }
}
