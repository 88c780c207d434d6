// The transaction handle: tx.db and statements on one transaction, commit hooks, and the outer handle refused
// inside a write (on SQLite it would wait forever for the connection the write holds).
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createBrand } from '../../src/accounts/brands.js';
import { statement } from '../../src/platform/db/sql.js';
import { OuterHandleInWriteError } from '../../src/platform/db/store.js';
import { dialects } from '../helpers.js';
import { migratedDatabase } from '../migrated-database.js';

const BRAND_NAMES = statement('select name from brands where id = ?');

describe.each(dialects())('the transaction handle on %s', (dialect) => {
  const database = migratedDatabase(dialect);

  /** Fails instead of hanging when a write never settles. */
  const settled = <T>(promise: Promise<T>) =>
    Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      new Promise<{ hung: true }>((resolve) => setTimeout(() => resolve({ hung: true }), 5000)),
    ]);

  it('refuses the outer Kysely instance inside a write at once, and rolls the write back', async () => {
    const result = await settled(
      database.write(async (tx) => {
        await tx.db
          .insertInto('brands')
          .values({ id: 'brd_outer_kysely', name: 'x', default_country: 'NL', created_at: 1 })
          .execute();
        return database.db.selectFrom('brands').selectAll().execute();
      }),
    );
    expect(result).toMatchObject({ error: expect.any(OuterHandleInWriteError) });
    expect(String((result as { error: Error }).error.message)).toContain('use the transaction handle');
    expect(await database.all(BRAND_NAMES, ['brd_outer_kysely'])).toEqual([]);
  });

  it('refuses the outer statements and a nested outer write inside a write', async () => {
    const viaStatements = await settled(database.write(() => database.all(BRAND_NAMES, ['x'])));
    expect(viaStatements).toMatchObject({ error: expect.any(OuterHandleInWriteError) });
    const nested = await settled(database.write(() => database.write(async () => 1)));
    expect(nested).toMatchObject({ error: expect.any(OuterHandleInWriteError) });
  });

  it('gives tx.db and tx statements the same transaction, and a domain function given the tx joins it', async () => {
    const failed = await settled(
      database.write(async (tx) => {
        const brand = await createBrand(tx, { language: 'en', name: 'Joined', country: 'NL' });
        // Seen by the statements of the same transaction before commit.
        expect(await tx.all(BRAND_NAMES, [brand.id])).toEqual([{ name: 'Joined' }]);
        await tx.db.updateTable('brands').set({ name: 'Renamed' }).where('id', '=', brand.id).execute();
        expect(await tx.all(BRAND_NAMES, [brand.id])).toEqual([{ name: 'Renamed' }]);
        throw new Error(`roll back ${brand.id}`);
      }),
    );
    const id = /brd_\w+/.exec(String((failed as { error: Error }).error.message))![0];
    // The domain function's insert was part of the rolled-back write.
    expect(await database.all(BRAND_NAMES, [id])).toEqual([]);
  });

  it('runs commit hooks after the commit, never for a write that rolled back', async () => {
    const seen: string[] = [];
    let visibleAtHook: unknown[] = [];
    const brand = await database.write(async (tx) => {
      const created = await createBrand(tx, { language: 'en', name: 'Hooked', country: 'NL' });
      tx.onCommit(() => {
        seen.push('committed');
        // Outside the write now: the outer handle works, and sees the data.
        visibleAtHook = [database.all(BRAND_NAMES, [created.id])];
      });
      seen.push('work done');
      return created;
    });
    expect(seen).toEqual(['work done', 'committed']);
    expect(await visibleAtHook[0]).toEqual([{ name: 'Hooked' }]);

    const rolledBack: string[] = [];
    await settled(
      database.write(async (tx) => {
        tx.onCommit(() => rolledBack.push('hook'));
        throw new Error('no');
      }),
    );
    expect(rolledBack).toEqual([]);
    expect(brand.name).toBe('Hooked');
  });

  it('signals listeners of a topic once the write that raised it has committed', async () => {
    const heard: string[] = [];
    const stop = database.listen('webhook-deliveries', () => heard.push('woken'));
    try {
      await database.write(async (tx) => {
        tx.signalAfterCommit('webhook-deliveries');
        expect(heard).toEqual([]);
      });
      expect(heard).toEqual(['woken']);
    } finally {
      stop();
    }
    await database.write(async (tx) => tx.signalAfterCommit('webhook-deliveries'));
    expect(heard).toEqual(['woken']);
  });

  it('refuses a transaction started on tx.db', async () => {
    const result = await settled(database.write((tx) => tx.db.transaction().execute(async () => 1)));
    expect(String((result as { error: Error }).error?.message)).toMatch(/transaction/i);
  });

  it('keeps the outer Kysely usable outside writes', async () => {
    expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows[0]?.one).toBe(1);
  });
});
