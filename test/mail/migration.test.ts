// The email migration on a database that already has users: owners get "Email me new leads" on, members off.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { dialects } from '../helpers.js';
import { databaseBefore } from '../migrated-database.js';

const BEFORE = '2026112301_lossless_intake';

describe.each(dialects())('the email migration on %s', (dialect) => {
  const before = databaseBefore(dialect, BEFORE);

  it('adds the outbox and turns new-lead mails on for the owners there are, off for members', async () => {
    const database = await before.open();
    const db = database.db;
    await sql`insert into brands (id, name, default_country, created_at) values ('brd_1', 'Acme', 'NL', 1)`.execute(
      db,
    );
    for (const [id, role] of [
      ['usr_owner', 'owner'],
      ['usr_member', 'member'],
    ]) {
      await sql`insert into users (id, brand_id, email, email_normalized, password_hash, role, created_at)
        values (${id}, 'brd_1', ${`${role}@acme.example`}, ${`${role}@acme.example`}, 'x', ${role}, 1)`.execute(
        db,
      );
    }

    // The email migration comes first of what is left (later ones may follow it).
    expect((await before.migrate())[0]).toBe('2026112302_email');

    const users = await db.selectFrom('users').select(['id', 'notify_new_leads']).orderBy('id').execute();
    expect(users).toEqual([
      { id: 'usr_member', notify_new_leads: 0 },
      { id: 'usr_owner', notify_new_leads: 1 },
    ]);
    expect(await db.selectFrom('email_outbox').selectAll().execute()).toEqual([]);
  });
});
