// A create's contact locks on PostgreSQL (issue 33; customers.ts, PhoneLock): a create holds its phone's lock
// shared when that is enough (an email of its own, or only the phone of a customer it links to as it is), so a
// crowd's creates do not wait for each other from their first statement to their commit; whatever needs the lock
// alone (a customer with only this phone inserted, one found by phone filled, given an email or announced) is
// done holding it alone, and two at once still make one customer and overwrite nothing.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects, type TestContext } from '../helpers.js';

/** Sessions waiting for the advisory lock of this key (the lock's low 32 bits are its objid). */
const WAITING =
  "select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted " +
  'and objid::bigint = (hashtext($1)::bigint & 4294967295)';

let phones = 0;
/** A phone no other test of this file uses. */
const newPhone = () =>
  `+3161${String(Date.now() % 100000).padStart(5, '0')}${String(++phones).padStart(2, '0')}`;

describe.runIf(dialects().includes('postgres'))("a create's contact locks on PostgreSQL", () => {
  let ctx: TestContext;
  /** Another session: it holds the locks, and watches who waits for them. */
  let other: pg.Client;
  let watcher: pg.Client;
  beforeAll(async () => {
    ctx = await createTestContext('postgres');
    other = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    watcher = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await Promise.all([other.connect(), watcher.connect()]);
  });
  afterAll(async () => {
    await Promise.all([other?.end(), watcher?.end()]);
    await ctx?.close();
  });

  const phoneKey = (phone: string) => `${ctx.brandId}|p|${phone}`;

  /**
   * Runs `during` while another write holds the phone's lock (alone, or shared), and lets it go after; `during`
   * gets a promise that resolves once some session waits for that lock.
   */
  async function holding<T>(
    phone: string,
    how: 'alone' | 'shared',
    during: (someoneWaits: () => Promise<void>) => Promise<T>,
  ): Promise<T> {
    await other.query('begin');
    const take = how === 'alone' ? 'pg_advisory_xact_lock' : 'pg_advisory_xact_lock_shared';
    await other.query(`select ${take}(hashtext($1))`, [phoneKey(phone)]);
    const someoneWaits = async () => {
      for (let waited = 0; ; waited += 10) {
        const { rows } = await watcher.query<{ n: number }>(WAITING, [phoneKey(phone)]);
        if ((rows[0]?.n ?? 0) > 0) return;
        if (waited > 10_000) throw new Error('nobody waited for the lock');
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    try {
      return await during(someoneWaits);
    } finally {
      await other.query('rollback');
    }
  }

  const customer = async (id: string) => (await ctx.api.get(`/v1/customers/${id}`)).json();
  const lead = (fields: Record<string, unknown>) => ctx.createLead(fields);

  it("shares the phone's lock when the create has an email, and waits for a write holding it alone", async () => {
    const phone = newPhone();
    // Shared by another: the create goes on.
    const created = await holding(phone, 'shared', () => lead({ email: 'shares@example.com', phone }));
    expect(created.customerId).toEqual(expect.any(String));
    // Held alone by another (an erasure, a merge, an edit): the create waits until it is let go.
    let done = false;
    const { pending: second } = await holding(phone, 'alone', async (someoneWaits) => {
      const pending = lead({ email: 'waits@example.com', phone }).finally(() => {
        done = true;
      });
      await someoneWaits();
      expect(done).toBe(false);
      // Not awaited here: the lock is let go only once this returns.
      return { pending };
    });
    expect((await second).customerId).not.toBe(created.customerId);
    expect((await customer(String((await second).customerId))).email).toBe('waits@example.com');
  });

  it('shares it without an email once the phone links to its customer as it is', async () => {
    const phone = newPhone();
    const first = await lead({ email: null, phone, customerName: 'Switchboard BV' });
    // The first made the customer (holding the lock alone); the second links to it as it is.
    const second = await lead({ email: null, phone, customerName: 'Switchboard BV' });
    expect(second.customerId).toBe(first.customerId);
    // Now a create with only this phone holds its lock shared: it goes on beside another holding it shared.
    const third = await holding(phone, 'shared', () =>
      lead({ email: null, phone, customerName: 'Switchboard BV' }),
    );
    expect(third.customerId).toBe(first.customerId);
  });

  it('fills a customer found by phone holding the lock alone, after trying it shared', async () => {
    const phone = newPhone();
    const first = await lead({ email: null, phone, customerName: 'Jan de Vries' });
    await lead({ email: null, phone, customerName: 'Jan de Vries' });
    // Shared is tried first (the last create with this phone could have), but a company name is to be filled:
    // the create is made again holding the lock alone, so it waits for a write holding it shared.
    let done = false;
    const { pending: filled } = await holding(phone, 'shared', async (someoneWaits) => {
      const pending = lead({
        email: null,
        phone,
        customerName: 'Jan de Vries',
        companyName: 'De Vries BV',
      }).finally(() => {
        done = true;
      });
      await someoneWaits();
      expect(done).toBe(false);
      // Not awaited here: the lock is let go only once this returns.
      return { pending };
    });
    expect((await filled).customerId).toBe(first.customerId);
    expect(await customer(String(first.customerId))).toMatchObject({
      companyName: 'De Vries BV',
      type: 'business',
    });
  });

  it('gives one customer found by phone one email when many with their own emails come at once', async () => {
    const phone = newPhone();
    const first = await lead({ email: null, phone, customerName: 'Front desk' });
    const emails = Array.from({ length: 8 }, (_, i) => `desk${i}-${phones}@example.com`);
    const created = await Promise.all(emails.map((email) => lead({ email, phone })));
    const onFirst = created.filter((c) => c.customerId === first.customerId);
    expect(onFirst).toHaveLength(1);
    const gained = (await customer(String(first.customerId))).email;
    expect(emails).toContain(gained);
    // Every other create made a customer of its own, with its own email: none was overwritten.
    for (const [i, c] of created.entries()) {
      expect((await customer(String(c.customerId))).email).toBe(emails[i]);
    }
    expect(new Set(created.map((c) => c.customerId)).size).toBe(emails.length);
  });

  it('makes one customer when many with only a phone nobody has any more come at once', async () => {
    const phone = newPhone();
    const first = await lead({ email: null, phone, customerName: 'Gone soon' });
    await lead({ email: null, phone, customerName: 'Gone soon' });
    // The phone's customer is erased: the next creates with only this phone try the lock shared first, find no
    // one, and must insert holding it alone, one after the other.
    const erased = await ctx.api.post(`/v1/customers/${first.customerId}/erase`, {});
    expect(erased.statusCode).toBe(200);
    const created = await Promise.all(
      Array.from({ length: 8 }, () => lead({ email: null, phone, customerName: 'Came back' })),
    );
    const ids = new Set(created.map((c) => c.customerId));
    expect(ids.size).toBe(1);
    expect([...ids][0]).not.toBe(first.customerId);
  });
  /** Sessions waiting, directly or behind another waiter, for what the session `pid` holds. */
  const BEHIND =
    'select count(*)::int as n from pg_stat_activity s where $1 = any(pg_blocking_pids(s.pid)) or exists (' +
    'select 1 from pg_stat_activity w where $1 = any(pg_blocking_pids(w.pid)) and w.pid = any(pg_blocking_pids(s.pid)))';

  /**
   * Starts each of `starts` while another session holds the customer's row, the next once the one before waits
   * for it (so they get the row in this order), and lets the row go once all of them wait.
   */
  async function holdingRow(customerId: string, starts: (() => Promise<unknown>)[]): Promise<unknown[]> {
    const { database } = ctx.app.deps.config;
    if (database.dialect !== 'postgres') throw new Error('PostgreSQL only');
    const pending: Promise<unknown>[] = [];
    await other.query('begin');
    try {
      await other.query(`select id from "${database.schema}".customers where id = $1 for update`, [
        customerId,
      ]);
      const { rows } = await other.query<{ pid: number }>('select pg_backend_pid() as pid');
      for (const start of starts) {
        const started = start();
        // Settled later, with the rest (Promise.all below).
        started.catch(() => {});
        pending.push(started);
        for (let waited = 0; ; waited += 10) {
          const { rows: n } = await watcher.query<{ n: number }>(BEHIND, [rows[0]?.pid]);
          if ((n[0]?.n ?? 0) >= pending.length) break;
          if (waited > 10_000) throw new Error(`fewer than ${pending.length} waited for the row`);
          await new Promise((r) => setTimeout(r, 10));
        }
      }
    } finally {
      await other.query('rollback');
    }
    return Promise.all(pending);
  }

  const updatesOf = async (customerId: string) =>
    (
      (await ctx.api.get('/v1/events?type=customer.updated&limit=100')).json().data as {
        data: { customer: { id: string }; changed: string[] };
      }[]
    ).filter((e) => e.data.customer.id === customerId);

  it('fills an empty field once when a create found by email and one found by phone fill it at once', async () => {
    // The two hold no lock in common (one its email's, the other its phone's): before, both read the empty company
    // name, both wrote theirs, and the second overwrote the first, each announcing it had filled it.
    const phone = newPhone();
    const email = `both-${phones}@example.com`;
    const made = await lead({ email, phone, customerName: 'Anna Smit' });
    const id = String(made.customerId);
    // The one found by phone gets the row first.
    const created = (await holdingRow(id, [
      () => lead({ email: null, phone, customerName: 'Anna Smit', companyName: 'Phone BV' }),
      () => lead({ email, customerName: 'Anna Smit', companyName: 'Email BV' }),
    ])) as Record<string, unknown>[];
    expect(created.map((c) => c.customerId)).toEqual([id, id]);
    expect((await customer(id)).companyName).toBe('Phone BV');
    const updates = (await updatesOf(id)).filter((e) => e.data.changed.includes('companyName'));
    expect(updates).toHaveLength(1);
    expect(updates[0]?.data.customer).toMatchObject({ companyName: 'Phone BV' });
  });

  it('never overwrites what an office edit set while a create was filling the same field', async () => {
    const phone = newPhone();
    const made = await lead({ email: null, phone, customerName: 'Kees Bakker' });
    const id = String(made.customerId);
    // The edit gets the row first; the create, which read the customer before it, must not undo it.
    const [edited, created] = await holdingRow(id, [
      () => ctx.api.patch(`/v1/customers/${id}`, { companyName: 'Set by the office' }),
      () => lead({ email: null, phone, customerName: 'Kees Bakker', companyName: 'From the form' }),
    ]);
    expect((edited as { statusCode: number }).statusCode).toBe(200);
    expect((created as Record<string, unknown>).customerId).toBe(id);
    expect((await customer(id)).companyName).toBe('Set by the office');
    expect((await updatesOf(id)).map((e) => e.data.changed)).toEqual([['companyName', 'type']]);
  });
});
