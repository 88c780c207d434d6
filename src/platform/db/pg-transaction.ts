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
// This relies on node-postgres's Query (its prepare and _getRows steps) and its connection's parse, bind, execute
// and sync writers: the pg version is pinned by the lockfile, and test/db/pg-transaction.test.ts covers each path.
import type pg from 'pg';
import { FIRST_COLUMN, type Runner, type Statement, statementName } from './sql.js';

interface ProtocolWriter {
  parse(message: { text: string }): void;
  bind(message: Record<string, never>): void;
  execute(message: { portal?: string; rows?: number }): void;
  sync(): void;
}

type Command = 'begin' | 'commit';
type Callback = (error: Error | null, result?: pg.QueryResult | pg.QueryResult[]) => void;
type WrappedQuery = { before?: Command; after?: Command };
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
  class Wrapped extends Query {
    before?: Command;
    after?: Command;
    override prepare(connection: ProtocolWriter): void {
      if (this.before) sendCommand(connection, this.before);
      super.prepare(connection);
    }
    // Called by prepare only once the statement's Bind was written (a value that cannot be sent makes prepare
    // sync without executing anything, and then no COMMIT may follow).
    override _getRows(connection: ProtocolWriter, rows?: number): void {
      if (!this.after || rows) {
        super._getRows(connection, rows);
        return;
      }
      connection.execute({ portal: this.portal ?? '' });
      sendCommand(connection, this.after);
      connection.sync();
    }
  }
  wrappedQueryClass = Wrapped as unknown as WrappedQueryClass;
  return wrappedQueryClass;
}

/** The statement's own result among those of the commands sent with it. */
function ownResult(result: pg.QueryResult | pg.QueryResult[] | undefined): pg.QueryResult {
  if (!Array.isArray(result)) return result as pg.QueryResult;
  const own = result.find((r) => r.command !== 'BEGIN' && r.command !== 'COMMIT');
  return own ?? (result[0] as pg.QueryResult);
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
    const before: Command | undefined = this.begun ? undefined : 'begin';
    this.begun = true;
    return new Promise((resolve, reject) => {
      const query = new this.Query(
        {
          ...statementName(s),
          text: s.postgres,
          values: params as unknown[],
          ...(s.postgres.startsWith(FIRST_COLUMN) ? { rowMode: 'array' as const } : {}),
        },
        undefined,
        (error, result) => (error ? reject(error) : resolve(ownResult(result))),
      );
      query.before = before;
      query.after = after;
      this.client.query(query as unknown as pg.QueryConfig);
    });
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
