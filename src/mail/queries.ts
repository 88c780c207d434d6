// The mail capability's SQL, all of it: the email outbox, and the language a user's mails are written in. Kysely queries, except the insert that queues a mail
// inside a lead create (see below). Reads take a Store (the database or a write's tx); writes take the write's Tx.
import type { Selectable, Updateable } from 'kysely';
import { leasedQueue } from '../platform/db/lease.js';
import { mentionsAny } from '../platform/db/mentions.js';
import type { EmailOutboxTable } from '../platform/db/schema.js';
import { statement } from '../platform/db/sql.js';
import type { Store, Tx } from '../platform/db/store.js';

// A hand-written statement, not Kysely: a lead create queues its "new lead" mails with it, one per user who asked
// for them. Kysely builds and compiles a query on every call, which measured ~10% of a create's CPU (commit
// 1930c31; bench/README.md, "What was done, and what each step bought", step 1), and the insert is deferred
// (Tx.defer): on PostgreSQL it reaches the server with the create's other inserts as one statement of
// data-modifying CTEs, which is built from statement texts (combinedInserts; commit b837174).
const INSERT_EMAIL = statement(
  'insert into email_outbox (id, brand_id, kind, recipient, subject, text, html, lead_id, status, attempt, ' +
    'next_attempt_at, lease_owner, lease_until, last_error, last_attempt_at, created_at, sent_at, reply_to) ' +
    "values (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, null, 0, null, null, ?, null, ?)",
);

/** Queues the insert of a pending mail, due `now`, with the caller's write (Tx.defer). */
export function deferEmailInsert(
  tx: Tx,
  email: Pick<
    Selectable<EmailOutboxTable>,
    'id' | 'brand_id' | 'kind' | 'recipient' | 'subject' | 'text' | 'html' | 'lead_id' | 'reply_to'
  >,
  now: number,
): Promise<void> {
  return tx.defer(INSERT_EMAIL, [
    email.id,
    email.brand_id,
    email.kind,
    email.recipient,
    email.subject,
    email.text,
    email.html,
    email.lead_id,
    now,
    now,
    email.reply_to,
  ]);
}

/**
 * Queues a mail written when it is sent (see send-time.ts): no text or html, the row it is made from in
 * send_time_ref. Kysely: such mails are few (password resets, invitations), and none is queued with a lead.
 */
export async function insertSendTimeEmail(
  tx: Tx,
  email: Pick<
    Selectable<EmailOutboxTable>,
    'id' | 'brand_id' | 'kind' | 'recipient' | 'subject' | 'send_time_ref' | 'lead_id'
  >,
  now: number,
): Promise<void> {
  await tx.db
    .insertInto('email_outbox')
    .values({
      ...email,
      text: '',
      html: '',
      status: 'pending',
      attempt: 0,
      next_attempt_at: now,
      lease_owner: null,
      lease_until: 0,
      last_error: null,
      last_attempt_at: null,
      created_at: now,
      sent_at: null,
    })
    .execute();
}

/** A user's language, their brand's and its country: what a mail to the user is written in. */
export function selectUserMailLanguage(
  { db }: Store,
  userId: string,
): Promise<{ language: string; brand_language: string; default_country: string } | undefined> {
  return db
    .selectFrom('users as u')
    .innerJoin('brands as b', 'b.id', 'u.brand_id')
    .select(['u.language', 'b.language as brand_language', 'b.default_country'])
    .where('u.id', '=', userId)
    .executeTakeFirst();
}

/** The outbox as a leased queue: due mails claimed by a worker, and its gauges. */
export const outboxQueue = leasedQueue('email_outbox', 'last_error');

export type EmailJobRow = Pick<
  Selectable<EmailOutboxTable>,
  | 'id'
  | 'kind'
  | 'attempt'
  | 'created_at'
  | 'recipient'
  | 'subject'
  | 'text'
  | 'html'
  | 'send_time_ref'
  | 'reply_to'
> & {
  /** The brand's mail sender name, else its name: the display name of the mail's From. */
  sender_name: string | null;
};

/** The mails of `ids` that `owner` still holds, with their brand's sender name. */
export function selectEmailJobs({ db }: Store, owner: string, ids: string[]): Promise<EmailJobRow[]> {
  return db
    .selectFrom('email_outbox as o')
    .leftJoin('brands as b', 'b.id', 'o.brand_id')
    .select(['o.id', 'o.kind', 'o.attempt', 'o.created_at', 'o.recipient', 'o.subject', 'o.text', 'o.html'])
    .select(['o.send_time_ref', 'o.reply_to'])
    .select((eb) => eb.fn.coalesce('b.mail_sender_name', 'b.name').as('sender_name'))
    .where('o.id', 'in', ids)
    .where('o.lease_owner', '=', owner)
    .execute();
}

/** Whether `owner` still holds this pending mail under its lease. */
export async function holdsEmail({ db }: Store, owner: string, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('email_outbox')
    .select('id')
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes a pending mail `owner` holds (one that is no longer needed); false when the lease was lost. */
export async function deleteClaimedEmail(tx: Tx, owner: string, id: string): Promise<boolean> {
  const deleted = await tx.db
    .deleteFrom('email_outbox')
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(deleted.numDeletedRows) === 1;
}

/**
 * Changes a mail `owner` holds under its lease while it is pending (an attempt's result, giving the lease back).
 * False when the lease was lost: another worker took the row after it expired.
 */
export async function updateClaimedEmail(
  tx: Tx,
  owner: string,
  id: string,
  set: Updateable<EmailOutboxTable>,
): Promise<boolean> {
  const updated = await tx.db
    .updateTable('email_outbox')
    .set(set)
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

export type FailedEmailRow = Pick<
  Selectable<EmailOutboxTable>,
  'id' | 'recipient' | 'subject' | 'last_error' | 'attempt' | 'created_at' | 'last_attempt_at'
>;

/** The brand's last `limit` mails that failed for good, newest first. */
export function selectFailedEmails({ db }: Store, brandId: string, limit: number): Promise<FailedEmailRow[]> {
  return db
    .selectFrom('email_outbox')
    .select(['id', 'recipient', 'subject', 'last_error', 'attempt', 'created_at', 'last_attempt_at'])
    .where('brand_id', '=', brandId)
    .where('status', '=', 'failed')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Erasure: deletes the brand's mail, queued or sent, about these leads; of mail queued before mails named their
 * lead, that whose text mentions one of them (the office's mail links the lead) or that went to one of these
 * addresses (lower case; a customer's receipt). Returns how many.
 */
export async function deleteMailAbout(
  tx: Tx,
  brandId: string,
  ids: readonly string[],
  recipients: readonly string[],
): Promise<number> {
  if (!ids.length && !recipients.length) return 0;
  const rows = await tx.db
    .deleteFrom('email_outbox')
    .where('brand_id', '=', brandId)
    .where((eb) =>
      eb.or([
        ...(ids.length ? [eb('lead_id', 'in', ids)] : []),
        eb.and([
          eb('lead_id', 'is', null),
          eb.or([
            mentionsAny('text', ids),
            ...(recipients.length ? [eb(eb.fn('lower', ['recipient']), 'in', recipients)] : []),
          ]),
        ]),
      ]),
    )
    .returning('id')
    .execute();
  return rows.length;
}

/**
 * Counts one receipt to a recipient (its address's hash) on a UTC day for the brand and returns the day's count
 * with it: one atomic upsert, so instances sharing the database never both take the last one. Counts of days
 * before `pruneBefore` (every brand's) are removed first.
 */
export async function countReceipt(
  tx: Tx,
  row: { brandId: string; recipientHash: string; day: string; pruneBefore: string },
): Promise<number> {
  await tx.db.deleteFrom('receipt_counts').where('day', '<', row.pruneBefore).execute();
  const counted = await tx.db
    .insertInto('receipt_counts')
    .values({ brand_id: row.brandId, recipient_hash: row.recipientHash, day: row.day, count: 1 })
    .onConflict((oc) =>
      oc
        .columns(['brand_id', 'recipient_hash', 'day'])
        .doUpdateSet((eb) => ({ count: eb(eb.ref('receipt_counts.count'), '+', 1) })),
    )
    .returning('count')
    .executeTakeFirstOrThrow();
  return Number(counted.count);
}

/** The brand's newest mail of a kind (the "Get started" checklist: did the new-lead mail go out?). */
export function selectLatestMailOfKind(
  { db }: Store,
  brandId: string,
  kind: string,
): Promise<
  | Pick<Selectable<EmailOutboxTable>, 'recipient' | 'status' | 'last_error' | 'sent_at' | 'created_at'>
  | undefined
> {
  return db
    .selectFrom('email_outbox')
    .select(['recipient', 'status', 'last_error', 'sent_at', 'created_at'])
    .where('brand_id', '=', brandId)
    .where('kind', '=', kind)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Whether a pending mail of this kind about this lead waits that no worker has claimed. */
export async function selectUnclaimedEmail(tx: Tx, kind: string, leadId: string): Promise<boolean> {
  const row = await tx.db
    .selectFrom('email_outbox')
    .select('id')
    .where('lead_id', '=', leadId)
    .where('kind', '=', kind)
    .where('status', '=', 'pending')
    .where('lease_owner', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}
