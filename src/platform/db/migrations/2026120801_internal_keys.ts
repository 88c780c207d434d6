import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../store.js';

/**
 * SQLite: internal integer keys for customers and addresses, and the links to them by key (issue 33).
 *
 * Customer and address ids are random (docs/api-contract.md: a write-only key must not learn when someone became a
 * customer), so every index that starts with one puts each new entry on a random page: on SQLite each such index
 * cost most creates one more WAL frame (a 4 KiB page written, then checkpointed), whatever the group commit shared.
 * Three indexes were of that kind only to find a customer's or an address's rows: `leads_customer_received`,
 * `leads_address` and `addresses_customer_match`. They now start with an integer key instead, given in insert
 * order, so a new customer's entries go to the last page of each, which the whole group shares
 * (bench/results/issue-33/round-11: WAL frames per create ×0.76 in the simulation; round-12 for this change).
 *
 * - `customers.key`, `addresses.key`: the table's `integer primary key` (its rowid, so no index more), never shown
 *   by the API; ids stay what clients see, unique as before.
 * - `addresses.customer_key`, `leads.customer_key`, `leads.address_key`: the keys of the rows `customer_id` and
 *   `address_id` name, with the foreign keys (a customer's delete finds its leads through
 *   `leads_customer_received`, as before through the id). The queries that find a customer's leads or addresses,
 *   or an address's leads, go through them (platform/db/internal-keys.ts); `customer_id` and `address_id` stay on
 *   the rows for everything else (the API, exports).
 *
 * The three tables are rebuilt (SQLite cannot add a primary key or move a foreign key in place; the procedure of
 * https://sqlite.org/lang_altertable.html#otheralter), their old rowids becoming the keys. Their other indexes and
 * their triggers are made again as they were, except that the triggers that find a customer's or an address's
 * leads go by key. The service's inserts and updates give the keys in the statement, from the ids; triggers give
 * them to rows written without them (SQL of one's own, an import), so a key is always its id's. The key columns
 * are nullable for that reason (a trigger fills them right after the insert); no row is left without them.
 *
 * PostgreSQL: nothing. Its inserts into random pages of an index cost no extra page write per commit the way
 * SQLite's WAL does (its creates were already faster than before their features, bench/README.md), and it sends a
 * create's inserts as one statement (combinedInserts), in which an insert cannot read the key of a row inserted
 * beside it. The links there stay the ids.
 *
 * A release before this one run on the migrated file (a rollback) still works: the triggers give the rows it
 * writes their keys, and its queries that find a customer's or an address's rows by id, with no index over the ids
 * any more, read the whole table.
 */
export function migration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'sqlite') await upSqlite(db);
    },
  };
}

/** The trigger bodies' and indexes' texts that find rows by id, and what finds them by key now (SQLite). */
const BY_KEY: readonly (readonly [string, string])[] = [
  ['l.customer_id = new.id', 'l.customer_key = new.key'],
  ['l.address_id = new.id', 'l.address_key = new.key'],
  ['where customer_id = new.id', 'where customer_key = new.key'],
  ['where address_id = new.id', 'where address_key = new.key'],
  ['l.customer_id = customers.id', 'l.customer_key = customers.key'],
];

/** `text` with `from` replaced by `to`, which must be there. */
function replaceOnce(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`internal keys: expected ${JSON.stringify(from)} in ${text}`);
  return text.replace(from, to);
}

interface SchemaEntry {
  type: 'index' | 'trigger';
  name: string;
  tbl_name: string;
  sql: string;
}

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  const exec = (text: string) => sql.raw(text).execute(db);
  const rows = async <T>(text: string) => (await sql.raw<T>(text).execute(db)).rows;
  const tables = ['customers', 'addresses', 'leads'];
  const createSql = async (table: string) =>
    (
      await rows<{ sql: string }>(`select sql from sqlite_master where type = 'table' and name = '${table}'`)
    )[0]!.sql;
  const columns = async (table: string) =>
    (await rows<{ name: string }>(`select name from pragma_table_info('${table}')`)).map(
      (c) => `"${c.name}"`,
    );

  // Foreign keys cannot be switched inside a transaction, and a rebuild must not check them half way; the rename
  // must leave the other tables' triggers and views as they are (they name the table, which is there again after).
  await exec('pragma foreign_keys = off');
  await exec('pragma legacy_alter_table = on');
  await exec('begin immediate');
  try {
    // Made again after the rebuild: every index and trigger on the three tables (a table's drop takes them).
    const saved = await rows<SchemaEntry>(
      `select type, name, tbl_name, sql from sqlite_master where type in ('index', 'trigger') and sql is not null
         and tbl_name in ('customers', 'addresses', 'leads') order by rowid`,
    );
    for (const entry of saved) if (entry.type === 'trigger') await exec(`drop trigger "${entry.name}"`);

    const rebuild = async (table: string, edit: (create: string) => string, copy: Record<string, string>) => {
      const old = await columns(table);
      const create = edit(await createSql(table)).replace(
        new RegExp(`^CREATE TABLE "?${table}"?`),
        `CREATE TABLE "${table}__rebuilt"`,
      );
      await exec(create);
      const added = Object.keys(copy);
      await exec(
        `insert into "${table}__rebuilt" (${[...old, ...added.map((c) => `"${c}"`)].join(', ')})
           select ${[...old, ...added.map((c) => copy[c]!)].join(', ')} from "${table}"`,
      );
      await exec(`drop table "${table}"`);
      await exec(`alter table "${table}__rebuilt" rename to "${table}"`);
    };
    const keyFirst = (create: string) =>
      replaceOnce(create, '"id" text primary key', '"key" integer primary key, "id" text not null unique');
    const refTo = (column: string, parent: string) => [
      `"${column}" text not null references "${parent}" ("id")`,
      `"${column}" text not null`,
    ];
    const append = (create: string, more: string) => `${create.replace(/\)\s*$/, '')}, ${more})`;

    // The old rowids become the keys: ascending in insert order, as new ones will be.
    await rebuild('customers', keyFirst, { key: 'rowid' });
    await rebuild(
      'addresses',
      (create) =>
        append(
          replaceOnce(keyFirst(create), ...(refTo('customer_id', 'customers') as [string, string])),
          '"customer_key" integer references "customers" ("key")',
        ),
      {
        key: 'rowid',
        customer_key: '(select c.key from customers c where c.id = addresses.customer_id)',
      },
    );
    await rebuild(
      'leads',
      (create) =>
        append(
          replaceOnce(
            replaceOnce(create, ...(refTo('customer_id', 'customers') as [string, string])),
            ...(refTo('address_id', 'addresses') as [string, string]),
          ),
          '"customer_key" integer references "customers" ("key"), ' +
            '"address_key" integer references "addresses" ("key")',
        ),
      {
        customer_key: '(select c.key from customers c where c.id = leads.customer_id)',
        address_key: '(select a.key from addresses a where a.id = leads.address_id)',
      },
    );

    const rekeyed: Record<string, string> = {
      leads_customer_received:
        'create index "leads_customer_received" on "leads" ("customer_key", "received_at", "id")',
      leads_address: 'create index "leads_address" on "leads" ("address_key")',
      addresses_customer_match:
        'create unique index "addresses_customer_match" on "addresses" ("customer_key", "match_key")',
    };
    for (const entry of saved.filter((e) => e.type === 'index')) await exec(rekeyed[entry.name] ?? entry.sql);
    for (const name of Object.keys(rekeyed)) {
      if (!saved.some((e) => e.name === name)) throw new Error(`internal keys: no index ${name} to move`);
    }
    for (const entry of saved.filter((e) => e.type === 'trigger')) {
      await exec(BY_KEY.reduce((text, [from, to]) => text.replaceAll(from, to), entry.sql));
    }

    // The keys follow the ids whoever writes (as PostgreSQL's trigger makes them): a statement that names no key
    // (an import in SQL, a tool) or an update that moves a row by its id alone. The service's own inserts and
    // updates give the keys in the statement (internal-keys.ts), so these find nothing to do: a create pays for
    // the WHEN alone.
    const key = (parent: string, id: string) => `(select p.key from ${parent} p where p.id = new.${id})`;
    const leadKeys = `customer_key = ${key('customers', 'customer_id')}, address_key = ${key('addresses', 'address_id')}`;
    const leadKeysWrong = `new.customer_key is not ${key('customers', 'customer_id')}
        or new.address_key is not ${key('addresses', 'address_id')}`;
    await exec(`create trigger leads_keys after insert on leads
      when new.customer_key is null or new.address_key is null
      begin update leads set ${leadKeys} where rowid = new.rowid; end`);
    await exec(`create trigger leads_keys_moved after update of customer_id, address_id, customer_key, address_key
      on leads when ${leadKeysWrong}
      begin update leads set ${leadKeys} where rowid = new.rowid; end`);
    const addressKeys = `customer_key = ${key('customers', 'customer_id')}`;
    await exec(`create trigger addresses_keys after insert on addresses when new.customer_key is null
      begin update addresses set ${addressKeys} where rowid = new.rowid; end`);
    await exec(`create trigger addresses_keys_moved after update of customer_id, customer_key on addresses
      when new.customer_key is not ${key('customers', 'customer_id')}
      begin update addresses set ${addressKeys} where rowid = new.rowid; end`);

    const broken = await rows<Record<string, unknown>>('pragma foreign_key_check');
    if (broken.length > 0)
      throw new Error(`internal keys: foreign keys broken: ${JSON.stringify(broken.slice(0, 5))}`);
    for (const table of tables) {
      const missing = await rows<{ n: number }>(
        `select count(*) as n from ${table} where ${
          table === 'customers'
            ? 'key is null'
            : table === 'addresses'
              ? 'customer_key is null'
              : 'customer_key is null or address_key is null'
        }`,
      );
      if (missing[0]!.n > 0) throw new Error(`internal keys: ${table} has rows without their keys`);
    }
    await exec('commit');
  } catch (error) {
    await exec('rollback');
    throw error;
  } finally {
    await exec('pragma legacy_alter_table = off');
    await exec('pragma foreign_keys = on');
  }
}
