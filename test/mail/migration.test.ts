// The email migration on a database that already has users: owners get "Email me new leads" on, members off; and
// the new-lead choice that replaced it keeps what each user had.
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

    // Carried on by the new-lead choice (2026113005): on is every lead, off none.
    const users = await db.selectFrom('users').select(['id', 'new_lead_mail']).orderBy('id').execute();
    expect(users).toEqual([
      { id: 'usr_member', new_lead_mail: 'none' },
      { id: 'usr_owner', new_lead_mail: 'every' },
    ]);
    expect(await db.selectFrom('email_outbox').selectAll().execute()).toEqual([]);
  });
});

describe.each(dialects())('the new-lead choice migration on %s', (dialect) => {
  const before = databaseBefore(dialect, '2026112910_links_made_when_sent');

  it('makes "on" every lead and "off" none, whatever the role, and adds the summaries table', async () => {
    const database = await before.open();
    const db = database.db;
    await sql`insert into brands (id, name, default_country, created_at) values ('brd_1', 'Acme', 'NL', 1)`.execute(
      db,
    );
    for (const [id, role, on] of [
      ['usr_a', 'owner', 1],
      ['usr_b', 'owner', 0],
      ['usr_c', 'member', 1],
      ['usr_d', 'member', 0],
    ] as const) {
      await sql`insert into users (id, brand_id, email, email_normalized, password_hash, role, created_at, notify_new_leads, language)
        values (${id}, 'brd_1', ${`${id}@acme.example`}, ${`${id}@acme.example`}, 'x', ${role}, 1, ${on}, 'en')`.execute(
        db,
      );
    }
    expect(await before.migrate()).toContain('2026113005_new_lead_choice');
    const users = await db
      .selectFrom('users')
      .select(['id', 'new_lead_mail', 'new_lead_mail_at'])
      .orderBy('id')
      .execute();
    expect(users).toEqual([
      { id: 'usr_a', new_lead_mail: 'every', new_lead_mail_at: 0 },
      { id: 'usr_b', new_lead_mail: 'none', new_lead_mail_at: 0 },
      { id: 'usr_c', new_lead_mail: 'every', new_lead_mail_at: 0 },
      { id: 'usr_d', new_lead_mail: 'none', new_lead_mail_at: 0 },
    ]);
    await expect(sql`select notify_new_leads from users`.execute(db)).rejects.toThrow();
    expect(await db.selectFrom('new_lead_summaries').selectAll().execute()).toEqual([]);
  });
});
