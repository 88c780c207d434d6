// The history-actor migration on a database with history written before actors were recorded: entries get their
// key or user (type, id, name) back where that still exists, a form lead's first entry its form; others stay null.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { getLead } from '../../src/leads/index.js';
import { dialects } from '../helpers.js';
import { databaseBefore } from '../migrated-database.js';

const BEFORE = '2026112305_key_creator';

describe.each(dialects())('the history-actor migration on %s', (dialect) => {
  const before = databaseBefore(dialect, BEFORE);

  it('names the key, user or form of old history entries where known, and leaves the rest null', async () => {
    const database = await before.open();
    const db = database.db;
    await sql`insert into brands (id, name, default_country, created_at) values ('brd_1', 'Acme', 'NL', 1)`.execute(
      db,
    );
    await sql`insert into users (id, brand_id, email, email_normalized, password_hash, role, created_at)
      values ('usr_sanne', 'brd_1', 'sanne@acme.example', 'sanne@acme.example', 'x', 'owner', 1)`.execute(db);
    await sql`insert into api_keys (id, brand_id, name, display_prefix, key_hash, scopes, created_at)
      values ('key_site', 'brd_1', 'Website', 'abcdefgh', 'hash', 'full', 1)`.execute(db);
    await sql`insert into customers (id, brand_id, type, name, created_at, updated_at)
      values ('cus_1', 'brd_1', 'person', 'Sam', 1, 1)`.execute(db);
    await sql`insert into addresses (id, brand_id, customer_id, street, postal_code, city, country, match_key, created_at, updated_at)
      values ('adr_1', 'brd_1', 'cus_1', 'Main', '1015CJ', 'Amsterdam', 'NL', 'k', 1, 1)`.execute(db);
    const lead = async (id: string, source: string, formId: string | null, formName: string | null) =>
      sql`insert into leads (id, brand_id, customer_id, address_id, title, priority, status, stage, source, received_at, created_at, updated_at, source_form_id, source_form_name)
        values (${id}, 'brd_1', 'cus_1', 'adr_1', ${id}, 'medium', 'cancelled', 'closed', ${source}, 1, 1, 1, ${formId}, ${formName})`.execute(
        db,
      );
    await lead('wrk_api', 'website', null, null);
    await lead('wrk_form', 'form', 'frm_contact', 'Contact page');
    const history: [lead: string, seq: number, status: string, actor: string | null][] = [
      ['wrk_api', 1, 'request', 'key_site'],
      ['wrk_api', 2, 'quoted', 'usr_sanne'],
      ['wrk_api', 3, 'scheduled', 'usr_removed'],
      ['wrk_api', 4, 'cancelled', null],
      ['wrk_form', 1, 'request', null],
      ['wrk_form', 2, 'cancelled', 'key_revoked_long_ago'],
    ];
    for (const [leadId, seq, status, actor] of history) {
      await sql`insert into lead_status_history (lead_id, seq, status, at, actor)
        values (${leadId}, ${seq}, ${status}, ${seq * 1000}, ${actor})`.execute(db);
    }

    const applied = await before.migrate();
    expect(applied).toContain('2026112306_history_actor');

    const actors = async (id: string) =>
      (await getLead(database, 'brd_1', id)).statusHistory.map((h) => [h.status, h.actor, h.reason]);
    expect(await actors('wrk_api')).toEqual([
      ['request', { type: 'key', id: 'key_site', name: 'Website' }, null],
      ['quoted', { type: 'user', id: 'usr_sanne', name: 'sanne@acme.example' }, null],
      ['scheduled', null, null],
      ['cancelled', null, null],
    ]);
    expect(await actors('wrk_form')).toEqual([
      ['request', { type: 'form', id: 'frm_contact', name: 'Contact page' }, null],
      ['cancelled', null, null],
    ]);
  });
});
