// PostgreSQL writes send BEGIN with their first statement and COMMIT with their last (src/platform/db/pg-transaction.ts):
// what each path sends, that a failure anywhere commits nothing and leaves the connection usable; statements sent
// together (Tx.pipeline); and that a create of a new customer's lead is two round trips.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { statement } from '../../src/platform/db/sql.js';
import type { ApiResponse } from '../api.js';
import { createTestContext, dialects, validLead } from '../helpers.js';
import { migratedDatabase } from '../migrated-database.js';
import { sentBy } from '../pg-queries.js';

const INSERT_BRAND = statement(
  'insert into brands (id, name, default_country, created_at) values (?, ?, ?, ?)',
);
const BRAND_NAME = statement('select name from brands where id = ?');
const BRAND_COUNTRY = statement('select default_country from brands where id = ?');
const LOCK = statement('select 1 as locked from (select pg_advisory_xact_lock(hashtext(?))) l');
/** Sessions waiting for the advisory lock of this key (the lock's low 32 bits are its objid). */
const WAITING = statement(
  "select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted " +
    'and objid::bigint = (hashtext(?)::bigint & 4294967295)',
);

describe.runIf(dialects().includes('postgres'))(
  'PostgreSQL transactions without round trips of their own',
  () => {
    const database = migratedDatabase('postgres');
    const names = async (...ids: string[]) =>
      (await Promise.all(ids.map((id) => database.all<{ name: string }>(BRAND_NAME, [id])))).flat();

    it('sends BEGIN with the first statement and COMMIT with the deferred inserts', async () => {
      const sent = await sentBy(() =>
        database.write(async (tx) => {
          await tx.all(BRAND_NAME, ['brd_none']);
          await tx.run(INSERT_BRAND, ['brd_rt_a', 'A', 'NL', 1]);
          await tx.defer(INSERT_BRAND, ['brd_rt_b', 'B', 'NL', 1]);
        }),
      );
      expect(sent.map(({ text, before, after }) => ({ text, before, after }))).toEqual([
        { text: BRAND_NAME.postgres, before: 'begin', after: undefined },
        { text: INSERT_BRAND.postgres, before: undefined, after: undefined },
        { text: INSERT_BRAND.postgres, before: undefined, after: 'commit' },
      ]);
      expect(await names('brd_rt_a', 'brd_rt_b')).toEqual([{ name: 'A' }, { name: 'B' }]);
    });

    it('sends COMMIT alone when nothing is deferred, and nothing at all for a write that sent nothing', async () => {
      const alone = await sentBy(() =>
        database.write((tx) => tx.run(INSERT_BRAND, ['brd_rt_alone', 'Alone', 'NL', 1])),
      );
      expect(alone.map((s) => [s.text, s.before, s.after])).toEqual([
        [INSERT_BRAND.postgres, 'begin', undefined],
        ['commit', undefined, undefined],
      ]);
      expect(await names('brd_rt_alone')).toEqual([{ name: 'Alone' }]);
      expect(await sentBy(() => database.write(async () => 'nothing'))).toEqual([]);
    });

    it('opens the transaction for Kysely on the write, and commits what it wrote', async () => {
      await database
        .write(async (tx) => {
          await tx.db
            .insertInto('brands')
            .values({ id: 'brd_rt_kysely', name: 'Kysely', default_country: 'NL', created_at: 1 })
            .execute();
          await tx.defer(INSERT_BRAND, ['brd_rt_kysely_b', 'Kysely B', 'NL', 1]);
          throw new Error('roll back');
        })
        .catch(() => {});
      expect(await names('brd_rt_kysely', 'brd_rt_kysely_b')).toEqual([]);
      await database.write(async (tx) => {
        await tx.db
          .insertInto('brands')
          .values({ id: 'brd_rt_kysely', name: 'Kysely', default_country: 'NL', created_at: 1 })
          .execute();
      });
      expect(await names('brd_rt_kysely')).toEqual([{ name: 'Kysely' }]);
    });

    it('commits nothing when the statement sent with BEGIN fails, and the connection works on', async () => {
      await expect(
        database.write((tx) => tx.run(INSERT_BRAND, ['brd_rt_bad', 'Bad', 'NL', 'not a number'])),
      ).rejects.toThrow(/invalid input syntax/);
      // Every pooled connection is used again: none was left inside an aborted transaction.
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          database.write((tx) => tx.run(INSERT_BRAND, [`brd_rt_ok${i}`, 'Ok', 'NL', 1])),
        ),
      );
      expect(await names('brd_rt_bad')).toEqual([]);
    });

    it('commits nothing when the inserts sent with COMMIT fail, including what the write did before', async () => {
      await expect(
        database.write(async (tx) => {
          await tx.run(INSERT_BRAND, ['brd_rt_before', 'Before', 'NL', 1]);
          await tx.defer(INSERT_BRAND, ['brd_rt_before', 'Duplicate', 'NL', 1]);
        }),
      ).rejects.toThrow(/duplicate key/);
      expect(await names('brd_rt_before')).toEqual([]);
    });

    it('commits nothing when a value of the last inserts cannot even be sent', async () => {
      const unsendable = {
        toPostgres() {
          throw new Error('this value cannot be sent');
        },
      };
      await expect(
        database.write(async (tx) => {
          await tx.run(INSERT_BRAND, ['brd_rt_unsent_before', 'Before', 'NL', 1]);
          await tx.defer(INSERT_BRAND, ['brd_rt_unsent', unsendable, 'NL', 1]);
        }),
      ).rejects.toThrow(/cannot be sent/);
      expect(await names('brd_rt_unsent_before', 'brd_rt_unsent')).toEqual([]);
      await database.write((tx) => tx.run(INSERT_BRAND, ['brd_rt_after_unsent', 'After', 'NL', 1]));
      expect(await names('brd_rt_after_unsent')).toEqual([{ name: 'After' }]);
    });

    it('sends pipelined statements in one round trip after the deferred inserts, each with its own rows', async () => {
      let rows: unknown[][] = [];
      const sent = await sentBy(() =>
        database.write(async (tx) => {
          await tx.defer(INSERT_BRAND, ['brd_pl_a', 'Pipelined A', 'NL', 1]);
          rows = await tx.pipeline([
            { s: BRAND_NAME, params: ['brd_pl_a'] },
            { s: BRAND_COUNTRY, params: ['brd_pl_a'] },
          ]);
        }),
      );
      expect(rows).toEqual([[{ name: 'Pipelined A' }], [{ default_country: 'NL' }]]);
      expect(sent.map(({ text, before, following }) => ({ text, before, following }))).toEqual([
        {
          text: INSERT_BRAND.postgres,
          before: 'begin',
          following: [
            { text: BRAND_NAME.postgres, name: expect.any(String) },
            { text: BRAND_COUNTRY.postgres, name: expect.any(String) },
          ],
        },
        { text: 'commit', before: undefined, following: undefined },
      ]);
    });

    it('runs a pipelined statement with a snapshot taken after the one before it got its lock', async () => {
      const key = `pipeline-snapshot-${randomBytes(6).toString('hex')}`;
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked!: () => void;
      const holding = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holder = database.write(async (tx) => {
        await tx.all(LOCK, [key]);
        locked();
        await released;
        await tx.run(INSERT_BRAND, ['brd_pl_locked', 'Committed under the lock', 'NL', 1]);
      });
      await holding;
      const waiter = database.write((tx) =>
        tx.pipeline([
          { s: LOCK, params: [key] },
          { s: BRAND_NAME, params: ['brd_pl_locked'] },
        ]),
      );
      // The waiter's lock statement is waiting at the server before the holder inserts and commits.
      while (Number((await database.all<{ n: number }>(WAITING, [key]))[0]!.n) === 0) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      release();
      await holder;
      expect((await waiter)[1]).toEqual([{ name: 'Committed under the lock' }]);
    });

    it('commits nothing when a pipelined statement fails, and books right which statements the server parsed', async () => {
      // Texts no connection has parsed yet.
      const tag = randomBytes(6).toString('hex');
      const neverParsed = statement(`select name from brands where id = ? and '${tag}' is not null`);
      const parsedThenFailed = statement(
        `insert into brands (id, name, default_country, created_at) select ?, ?, ?, ?::bigint where '${tag}' is not null`,
      );
      // The first statement fails: the server skips the second's Parse, so it must be parsed next time.
      await expect(
        database.write(async (tx) => {
          await tx.pipeline([
            { s: INSERT_BRAND, params: ['brd_pl_bad', 'Bad', 'NL', 'not a number'] },
            { s: neverParsed, params: ['brd_pl_bad'] },
          ]);
        }),
      ).rejects.toThrow(/invalid input syntax/);
      // The second statement fails after its Parse: it must not be parsed again (that would fail as a duplicate).
      await expect(
        database.write(async (tx) => {
          await tx.pipeline([
            { s: INSERT_BRAND, params: ['brd_pl_first', 'First', 'NL', 1] },
            { s: parsedThenFailed, params: ['brd_pl_second', 'Second', 'NL', 'not a number'] },
          ]);
        }),
      ).rejects.toThrow(/invalid input syntax/);
      expect(await names('brd_pl_bad', 'brd_pl_first', 'brd_pl_second')).toEqual([]);
      // Every pooled connection runs both again: their bookkeeping matches what the server parsed.
      const rows = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          database.write((tx) =>
            tx.pipeline([
              { s: parsedThenFailed, params: [`brd_pl_ok${i}`, 'Ok', 'NL', 1] },
              { s: neverParsed, params: [`brd_pl_ok${i}`] },
            ]),
          ),
        ),
      );
      expect(rows.map((r) => r[1])).toEqual(Array.from({ length: 12 }, () => [{ name: 'Ok' }]));
    });

    it('sends nothing when a value of a pipelined statement cannot be sent', async () => {
      const unsendable = {
        toPostgres() {
          throw new Error('this value cannot be sent');
        },
      };
      const sent = await sentBy(() =>
        database
          .write((tx) =>
            tx.pipeline([
              { s: INSERT_BRAND, params: ['brd_pl_unsent', 'Unsent', 'NL', 1] },
              { s: BRAND_NAME, params: [unsendable] },
            ]),
          )
          .catch((error: Error) => error.message),
      );
      expect(sent).toEqual([]);
      expect(await names('brd_pl_unsent')).toEqual([]);
    });
  },
);

describe.runIf(dialects().includes('postgres'))('a create on PostgreSQL', () => {
  it("is two round trips for a new customer's lead: brand with locks and customer, inserts", async () => {
    const ctx = await createTestContext('postgres');
    try {
      const writer = ctx.api.as(ctx.keys['leads:write']);
      // Warm: the key is read and cached on first use.
      expect(
        (await writer.post('/v1/leads', validLead({ email: 'warm@example.com', phone: null }))).statusCode,
      ).toBe(201);
      let response: ApiResponse | undefined;
      const sent = await sentBy(async () => {
        response = await writer.post(
          '/v1/leads',
          validLead({ email: 'three@example.com', phone: '+31612345099' }),
        );
      });
      expect(response?.statusCode).toBe(201);
      const create = sent.filter((s) => !/api_keys/.test(s.text));
      expect(create).toHaveLength(2);
      expect(create[0]).toMatchObject({
        before: 'begin',
        text: expect.stringMatching(/pg_advisory_xact_lock.*from brands/s),
        following: [{ text: expect.stringMatching(/^with found as .*insert into customers/s) }],
      });
      expect(create[1]).toMatchObject({
        after: 'commit',
        text: expect.stringMatching(/^with d0 as \(insert into/),
      });
      for (const table of ['addresses', 'leads', 'lead_status_history', 'events']) {
        expect(create[1]!.text).toContain(`insert into ${table} `);
      }
      // And what they wrote is all there.
      const lead = await ctx.app.inject({
        method: 'GET',
        url: `/v1/leads/${response!.json().id}`,
        headers: { 'x-api-key': ctx.keys['leads:read'] },
      });
      expect(lead.json()).toMatchObject({ customer: { email: 'three@example.com', phone: '+31612345099' } });
    } finally {
      await ctx.close();
    }
  });

  it("links a repeat customer's lead at a known address in two round trips, as a new customer's", async () => {
    const ctx = await createTestContext('postgres');
    try {
      const writer = ctx.api.as(ctx.keys['leads:write']);
      const lead = validLead({
        email: 'again@example.com',
        phone: '+31612345098',
        customerName: 'Jan Again',
      });
      const statements = async (body: Record<string, unknown>) => {
        let response: ApiResponse | undefined;
        const sent = await sentBy(async () => {
          response = await writer.post('/v1/leads', body);
        });
        expect(response?.statusCode).toBe(201);
        return { lead: response!.json(), sent: sent.filter((s) => !/api_keys/.test(s.text)) };
      };
      const first = await statements(lead);
      // The same customer at the same address (written differently; the brand's country, NL, left out): the find
      // brings the customer, whether it was announced and that address, so nothing is read after it.
      const again = await statements({ ...lead, postalCode: '1015cj', street: 'keizers gracht' });
      expect(again.lead.customerId).toBe(first.lead.customerId);
      expect(again.lead.addressId).toBe(first.lead.addressId);
      expect(again.sent).toHaveLength(2);
      expect(again.sent[0]).toMatchObject({
        before: 'begin',
        following: [
          { text: expect.stringMatching(/^with found as .*linked as \(select.*address as \(select/s) },
        ],
      });
      expect(again.sent[1]).toMatchObject({
        after: 'commit',
        text: expect.stringMatching(/insert into leads /),
      });
      // At an address in another country than the brand's: a new one (inserted on its own, its key naming that
      // country), then found as well.
      const abroad = { ...lead, street: 'Grote Markt', streetNumber: '1', postalCode: '1000', country: 'BE' };
      const there = await statements(abroad);
      expect(there.lead.addressId).not.toBe(first.lead.addressId);
      expect(there.sent).toHaveLength(3);
      expect(there.sent[1]!.text).toMatch(/^insert into addresses /);
      const thereAgain = await statements(abroad);
      expect(thereAgain.lead.addressId).toBe(there.lead.addressId);
      expect(thereAgain.sent).toHaveLength(2);
    } finally {
      await ctx.close();
    }
  });
});
