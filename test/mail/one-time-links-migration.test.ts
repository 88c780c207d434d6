// The migration that makes one-time links only when their mail is sent, on a database with reset links made before:
// those links sat in clear in the outbox, so every one of them dies, with its mail; other mail stays.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { findPasswordReset } from '../../src/accounts/password-resets.js';
import { hashSecret, newSecret } from '../../src/shared/secrets.js';
import { dialects } from '../helpers.js';
import { databaseBefore } from '../migrated-database.js';

const BEFORE = '2026112801_personal_data';

describe.each(dialects())('the links-made-when-sent migration on %s', (dialect) => {
  const before = databaseBefore(dialect, BEFORE);

  it('kills every reset link made before, deletes their mails, and keeps the other mail', async () => {
    const database = await before.open();
    const db = database.db;
    const token = newSecret();
    const now = Date.now();
    await sql`insert into brands (id, name, default_country, created_at) values ('brd_1', 'Acme', 'NL', 1)`.execute(
      db,
    );
    await sql`insert into users (id, brand_id, email, email_normalized, password_hash, role, created_at)
      values ('usr_1', 'brd_1', 'owner@acme.example', 'owner@acme.example', 'x', 'owner', 1)`.execute(db);
    await sql`insert into password_resets (token_hash, user_id, created_at, expires_at)
      values (${hashSecret(token)}, 'usr_1', ${now}, ${now + 3_600_000})`.execute(db);
    for (const [id, kind, status, text] of [
      ['eml_reset_sent', 'password_reset', 'sent', `https://x.example/reset-password?token=${token}`],
      ['eml_reset_queued', 'password_reset', 'pending', `https://x.example/reset-password?token=${token}`],
      ['eml_lead', 'new_lead', 'sent', 'A new lead'],
    ]) {
      await sql`insert into email_outbox (id, brand_id, kind, recipient, subject, text, html, status, attempt,
          next_attempt_at, lease_until, created_at)
        values (${id}, 'brd_1', ${kind}, 'owner@acme.example', 'Subject', ${text}, ${text}, ${status}, 0, ${now}, 0,
          ${now})`.execute(db);
    }
    // The link works before.
    expect(await findPasswordReset(database, token)).not.toBeNull();

    expect(await before.migrate()).toContain('2026112910_links_made_when_sent');

    expect(await findPasswordReset(database, token)).toBeNull();
    expect(await db.selectFrom('password_resets').selectAll().execute()).toEqual([]);
    const mail = await db.selectFrom('email_outbox').select(['id', 'send_time_ref']).execute();
    expect(mail).toEqual([{ id: 'eml_lead', send_time_ref: null }]);
    const invites = await db.selectFrom('user_invites').select(['id', 'mail_token_hash']).execute();
    expect(invites).toEqual([]);
  });
});
