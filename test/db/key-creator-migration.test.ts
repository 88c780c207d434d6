// The key-creator migration on a database that already has keys: dashboard keys get their creator's user id back
// from the email recorded while that user exists; command-line keys, older keys and removed creators get none.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { dialects } from '../helpers.js';
import { databaseBefore } from '../migrated-database.js';

const BEFORE = '2026112303_forms';

describe.each(dialects())('the key-creator migration on %s', (dialect) => {
  const before = databaseBefore(dialect, BEFORE);

  it('adds created_by_user_id and fills it for dashboard keys whose creator still exists', async () => {
    const database = await before.open();
    const db = database.db;
    for (const brand of ['brd_1', 'brd_2']) {
      await sql`insert into brands (id, name, default_country, created_at) values (${brand}, ${brand}, 'NL', 1)`.execute(
        db,
      );
    }
    await sql`insert into users (id, brand_id, email, email_normalized, password_hash, role, created_at)
      values ('usr_admin', 'brd_1', 'Admin@acme.example', 'admin@acme.example', 'x', 'owner', 1)`.execute(db);
    const keys: [id: string, brand: string, createdBy: string | null][] = [
      ['key_dashboard', 'brd_1', 'Admin@acme.example'],
      ['key_cli', 'brd_1', 'cli'],
      ['key_old', 'brd_1', null],
      ['key_removed', 'brd_1', 'gone@acme.example'],
      // The same email in another brand is not this user.
      ['key_other_brand', 'brd_2', 'Admin@acme.example'],
    ];
    for (const [id, brand, createdBy] of keys) {
      await sql`insert into api_keys (id, brand_id, name, display_prefix, key_hash, scopes, created_at, created_by)
        values (${id}, ${brand}, ${id}, 'abcdefgh', ${`hash_${id}`}, 'full', 1, ${createdBy})`.execute(db);
    }

    const applied = await before.migrate();
    expect(applied).toContain('2026112305_key_creator');

    const rows = await sql<{ id: string; created_by: string | null; created_by_user_id: string | null }>`
      select id, created_by, created_by_user_id from api_keys order by id`.execute(db);
    expect(rows.rows).toEqual([
      { id: 'key_cli', created_by: 'cli', created_by_user_id: null },
      { id: 'key_dashboard', created_by: 'Admin@acme.example', created_by_user_id: 'usr_admin' },
      { id: 'key_old', created_by: null, created_by_user_id: null },
      { id: 'key_other_brand', created_by: 'Admin@acme.example', created_by_user_id: null },
      { id: 'key_removed', created_by: 'gone@acme.example', created_by_user_id: null },
    ]);
  });
});
