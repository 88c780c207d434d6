// The email outbox: one row per mail, queued in the transaction that causes it and sent by a worker under a lease
// (the same design as the webhook delivery queue: a conditional UPDATE claims due rows, so instances sharing the
// database never send one mail twice).

import type { Store, Tx } from '../platform/db/store.js';
import { type RetryPolicy, retryDelayMs } from '../platform/queue/retry.js';
import { defaultBrandLocale, type Locale } from '../shared/i18n/index.js';
import { newId } from '../shared/ids.js';
import { iso } from '../shared/time.js';
import {
  deferEmailInsert,
  deleteMailAbout,
  insertSendTimeEmail,
  selectEmailJobs,
  selectFailedEmails,
  selectLatestMailOfKind,
  selectUnclaimedEmail,
  selectUserMailLanguage,
  updateClaimedEmail,
} from './queries.js';
import { mailLocale } from './templates/layout.js';

export { outboxQueue } from './queries.js';

export type EmailStatus = 'pending' | 'sent' | 'failed';

export interface NewEmail {
  brandId: string;
  /** What the mail is about, e.g. 'new_lead'. */
  kind: string;
  recipient: string;
  subject: string;
  text: string;
  html: string;
  /** The lead the mail is about, if any: an erasure of its data deletes the mail. */
  leadId?: string;
  /** Where a reply goes (the customer's email on a new-lead mail); absent: to the sender. */
  replyTo?: string | null;
}

/**
 * Queues a mail in the caller's transaction and wakes the mail workers once it has committed. Nothing is sent if
 * the transaction rolls back.
 */
export async function queueEmail(tx: Tx, email: NewEmail, now: number = Date.now()): Promise<string> {
  const id = newId('email', now);
  await deferEmailInsert(
    tx,
    {
      id,
      brand_id: email.brandId,
      kind: email.kind,
      recipient: email.recipient,
      subject: email.subject,
      text: email.text,
      html: email.html,
      lead_id: email.leadId ?? null,
      reply_to: email.replyTo ?? null,
    },
    now,
  );
  tx.signalAfterCommit('email-outbox');
  return id;
}

/** A mail written only when the worker sends it (send-time.ts), from the row `ref` names. */
export interface NewSendTimeEmail {
  brandId: string;
  /** What the mail is about; also names the renderer the worker asks for its text (SendTimeRenderers). */
  kind: string;
  recipient: string;
  /** What the dashboard lists for it (a failed mail); the renderer words the sent subject anew. Never a secret. */
  subject: string;
  /** The row the mail is made from, e.g. a password reset's id. */
  ref: string;
  /** The lead the mail is about, if any: an erasure of its data deletes the mail. */
  leadId?: string;
}

/**
 * Queues a mail whose text the worker writes when it sends it (see send-time.ts), so what it carries that must not
 * be at rest (a one-time link) is never stored. Like queueEmail, sent only once the transaction has committed.
 */
export async function queueSendTimeEmail(
  tx: Tx,
  email: NewSendTimeEmail,
  now: number = Date.now(),
): Promise<string> {
  const id = newId('email', now);
  await insertSendTimeEmail(
    tx,
    {
      id,
      brand_id: email.brandId,
      kind: email.kind,
      recipient: email.recipient,
      subject: email.subject,
      send_time_ref: email.ref,
      lead_id: email.leadId ?? null,
    },
    now,
  );
  tx.signalAfterCommit('email-outbox');
  return id;
}

/**
 * Whether a mail of this kind about this lead is queued and not yet taken by a worker: a later change then needs
 * no mail of its own, that one being written when it is sent (a visit notice tells the latest).
 */
export function unclaimedEmailQueued(tx: Tx, kind: string, leadId: string): Promise<boolean> {
  return selectUnclaimedEmail(tx, kind, leadId);
}

/**
 * The language of mails to a user: their own, else their brand's (else the one its country implies). Read in the
 * write that writes the mail: the one that queues it, or the worker's for a mail written when sent.
 */
export async function userMailLocale(store: Store, userId: string): Promise<Locale> {
  const row = await selectUserMailLanguage(store, userId);
  if (!row) throw new Error(`No user with id ${userId}`);
  return mailLocale([row.language, row.brand_language], defaultBrandLocale(row.default_country));
}

/** Everything a worker needs to send one claimed mail. */
export interface EmailJob {
  id: string;
  kind: string;
  attempt: number;
  createdAt: number;
  recipient: string;
  subject: string;
  text: string;
  html: string;
  /** Set for a mail written when it is sent (send-time.ts): its text and html are empty until then. */
  sendTimeRef: string | null;
  /** The mail's Reply-To, or null. */
  replyTo: string | null;
  /** The display name of its From: the brand's mail sender name, else its name (Settings > Brand). */
  senderName: string | null;
}

/** The claimed mails `owner` still holds. */
export async function loadEmailJobs(store: Store, owner: string, ids: string[]): Promise<EmailJob[]> {
  if (!ids.length) return [];
  const rows = await selectEmailJobs(store, owner, ids);
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    attempt: r.attempt,
    createdAt: r.created_at,
    recipient: r.recipient,
    subject: r.subject,
    text: r.text,
    html: r.html,
    sendTimeRef: r.send_time_ref,
    replyTo: r.reply_to,
    senderName: r.sender_name,
  }));
}

export interface EmailOutcome {
  ok: boolean;
  /** Why the attempt failed (the SMTP answer or the connection error); never the message. */
  error: string | null;
  /** The server refused the mail for good: no retry. */
  permanent?: boolean;
  at: number;
}

/**
 * Stores the result of an attempt made under the lease: sent, pending again after a backoff with jitter, or failed
 * once the retry window since the mail was queued has passed (or at once when the refusal is permanent). Nothing is written when the lease was lost (another
 * worker took the row after it expired): that worker's result counts.
 */
export async function recordEmailAttempt(
  store: Store,
  owner: string,
  job: EmailJob,
  outcome: EmailOutcome,
  policy: RetryPolicy,
): Promise<EmailStatus | 'lease_lost'> {
  const attempt = job.attempt + 1;
  const deadline = job.createdAt + policy.retryWindowMs;
  const status: EmailStatus = outcome.ok
    ? 'sent'
    : outcome.permanent || outcome.at >= deadline
      ? 'failed'
      : 'pending';
  const next =
    status === 'pending'
      ? Math.min(outcome.at + retryDelayMs(attempt, policy.retryBaseMs), deadline)
      : outcome.at;
  const updated = await store.write((tx) =>
    updateClaimedEmail(tx, owner, job.id, {
      status,
      attempt,
      next_attempt_at: next,
      last_error: outcome.ok ? null : outcome.error,
      last_attempt_at: outcome.at,
      sent_at: outcome.ok ? outcome.at : null,
      lease_owner: null,
      // It ran to a result: its holder did not die with it.
      crashes: 0,
      lease_until: 0,
    }),
  );
  return updated ? status : 'lease_lost';
}

/** Gives a claimed row back without counting an attempt (shutdown interrupted it), so it is due again at once. */
export async function releaseEmailLease(store: Store, owner: string, id: string): Promise<void> {
  await store.write((tx) => updateClaimedEmail(tx, owner, id, { lease_owner: null, lease_until: 0 }));
}

export interface FailedEmail {
  id: string;
  recipient: string;
  subject: string;
  lastError: string | null;
  attempts: number;
  createdAt: string;
  /** When it was given up. */
  failedAt: string;
}

/** The brand's mails that were never sent, newest first. */
export async function listFailedEmails(store: Store, brandId: string, limit = 20): Promise<FailedEmail[]> {
  const rows = await selectFailedEmails(store, brandId, limit);
  return rows.map((r) => ({
    id: r.id,
    recipient: r.recipient,
    subject: r.subject,
    lastError: r.last_error,
    attempts: r.attempt,
    createdAt: iso(r.created_at),
    failedAt: iso(r.last_attempt_at ?? r.created_at),
  }));
}

/**
 * Erasure: deletes the brand's mail about these leads, queued or sent, so no copy of the person's data stays in
 * the outbox; `recipients`: the person's addresses, for mail queued before mails named their lead (receipts).
 * Returns how many.
 */
export function dropMailAbout(
  tx: Tx,
  brandId: string,
  leadIds: readonly string[],
  recipients: readonly string[],
): Promise<number> {
  return deleteMailAbout(
    tx,
    brandId,
    leadIds,
    recipients.map((r) => r.toLowerCase()),
  );
}

/** The brand's newest mail of a kind, as the dashboard tells it; undefined when there is none. */
export interface LatestMail {
  recipient: string;
  status: EmailStatus;
  lastError: string | null;
  /** When it was sent, else queued. */
  at: string;
}

export async function latestMailOfKind(
  store: Store,
  brandId: string,
  kind: string,
): Promise<LatestMail | undefined> {
  const row = await selectLatestMailOfKind(store, brandId, kind);
  if (!row) return undefined;
  return {
    recipient: row.recipient,
    status: row.status,
    lastError: row.last_error,
    at: iso(Number(row.sent_at ?? row.created_at)),
  };
}
