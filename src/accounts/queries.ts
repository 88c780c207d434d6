// The accounts capability's SQL, all of it: brands, users, API keys, sessions, sign-in failures, setup tokens,
// invitations, password resets and dashboard flashes. Kysely queries. Reads take a Store (the database or a write's
// tx); writes take the write's Tx, so the transaction is the caller's.
import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import { mentionsAny } from '../platform/db/mentions.js';
import { insertOrGet, lockRow } from '../platform/db/portable.js';
import type {
  ApiKeyTable,
  BrandTable,
  DashboardFlashTable,
  PasswordResetTable,
  SessionTable,
  UserInviteTable,
  UserTable,
} from '../platform/db/schema.js';
import type { Store, Tx } from '../platform/db/store.js';

// Brands

export type BrandRow = Selectable<BrandTable>;

export async function insertBrand(tx: Tx, row: Insertable<BrandTable>): Promise<void> {
  await tx.db.insertInto('brands').values(row).execute();
}

/** Every brand by id, or the first `limit`. */
export function selectBrands({ db }: Store, limit?: number): Promise<BrandRow[]> {
  const q = db.selectFrom('brands').selectAll().orderBy('id');
  return (limit === undefined ? q : q.limit(limit)).execute();
}

export function selectBrand({ db }: Store, id: string): Promise<BrandRow | undefined> {
  return db.selectFrom('brands').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateBrand(tx: Tx, id: string, set: Updateable<BrandTable>): Promise<void> {
  await tx.db.updateTable('brands').set(set).where('id', '=', id).execute();
}

/**
 * Locks the brand's row for the rest of the write (PostgreSQL; see lockRow): writes that must see each other's
 * changes to the brand's users take turns on it.
 */
export async function lockBrand(tx: Tx, id: string): Promise<void> {
  await lockRow(tx, 'brands', id);
}

// Users

const USER_COLUMNS = ['id', 'brand_id', 'email', 'name', 'role', 'created_at', 'language'] as const;

/** What the dashboard shows of a user. */
export type UserRow = Pick<Selectable<UserTable>, (typeof USER_COLUMNS)[number]>;

/** Inserts the user unless their email is taken (the unique email_normalized); false when it is. */
export async function insertUserUnlessEmailTaken(tx: Tx, row: Insertable<UserTable>): Promise<boolean> {
  const result = await insertOrGet(tx, 'users', row, ['email_normalized'], ['id']);
  return result?.inserted === true;
}

/**
 * Whether a user of this brand, disabled or not, has this email (lower case). It reads only the brand's own users
 * (their index by brand), so neither the answer nor the work done depends on other brands' accounts.
 */
export async function brandHasUserWithEmail(
  { db }: Store,
  brandId: string,
  emailNormalized: string,
): Promise<boolean> {
  const rows = await db
    .selectFrom('users')
    .select('email_normalized')
    .where('brand_id', '=', brandId)
    .execute();
  return rows.some((row) => row.email_normalized === emailNormalized);
}

/** The brand's users who can sign in, oldest first. */
export function selectActiveUsers(
  { db }: Store,
  brandId: string,
): Promise<(UserRow & Pick<Selectable<UserTable>, 'new_lead_mail'>)[]> {
  return db
    .selectFrom('users')
    .select([...USER_COLUMNS, 'new_lead_mail'])
    .where('brand_id', '=', brandId)
    .where('disabled_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The new-lead email an active user of the brand chose; undefined when there is no such user. */
export async function selectNewLeadMail(
  { db }: Store,
  brandId: string,
  id: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('users')
    .select('new_lead_mail')
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
  return row?.new_lead_mail;
}

export function selectActiveUser({ db }: Store, brandId: string, id: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
}

/** The user who can sign in with this email (lower case), with their password hash. */
export function selectSignInUser(
  { db }: Store,
  emailNormalized: string,
): Promise<(UserRow & Pick<Selectable<UserTable>, 'password_hash'>) | undefined> {
  return db
    .selectFrom('users')
    .select([...USER_COLUMNS, 'password_hash'])
    .where('email_normalized', '=', emailNormalized)
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
}

/** Whether the brand has an admin who can sign in other than `exceptId`. */
export async function otherAdminExists(store: Store, brandId: string, exceptId: string): Promise<boolean> {
  const row = await store.db
    .selectFrom('users')
    .select('id')
    .where('brand_id', '=', brandId)
    .where('role', '=', 'owner')
    .where('disabled_at', 'is', null)
    .where('id', '!=', exceptId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function countUsers({ db }: Store): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Changes the brand's user (only while they can sign in, with `onlyActive`); false when there is none. */
export async function updateUser(
  tx: Tx,
  brandId: string,
  id: string,
  set: Updateable<UserTable>,
  options: { onlyActive?: boolean } = {},
): Promise<boolean> {
  let q = tx.db.updateTable('users').set(set).where('id', '=', id).where('brand_id', '=', brandId);
  if (options.onlyActive) q = q.where('disabled_at', 'is', null);
  const updated = await q.executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

export async function updatePasswordHash(tx: Tx, userId: string, passwordHash: string): Promise<void> {
  await tx.db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}

export async function deleteUser(tx: Tx, brandId: string, id: string): Promise<void> {
  await tx.db.deleteFrom('users').where('id', '=', id).where('brand_id', '=', brandId).execute();
}

/** The brand's leads given to the user become nobody's. */
export async function unassignLeads(tx: Tx, brandId: string, userId: string): Promise<void> {
  await tx.db
    .updateTable('leads')
    .set({ assignee_id: null })
    .where('brand_id', '=', brandId)
    .where('assignee_id', '=', userId)
    .execute();
}

/** A user and brand as changing or resetting the password needs them. */
export type PasswordOwnerRow = Pick<
  Selectable<UserTable>,
  'id' | 'brand_id' | 'email' | 'email_normalized' | 'password_hash'
> & { brand_name: Selectable<BrandTable>['name'] };

/** The user who can sign in, by id or by email (lower case), with their brand's name. */
export function selectPasswordOwner(
  { db }: Store,
  by: { id: string } | { emailNormalized: string },
): Promise<PasswordOwnerRow | undefined> {
  const q = db
    .selectFrom('users as u')
    .innerJoin('brands as b', 'b.id', 'u.brand_id')
    .select([
      'u.id',
      'u.brand_id',
      'u.email',
      'u.email_normalized',
      'u.password_hash',
      'b.name as brand_name',
    ])
    .where('u.disabled_at', 'is', null);
  return (
    'id' in by ? q.where('u.id', '=', by.id) : q.where('u.email_normalized', '=', by.emailNormalized)
  ).executeTakeFirst();
}

// API keys

const KEY_COLUMNS = [
  'id',
  'brand_id',
  'name',
  'display_prefix',
  'scopes',
  'created_at',
  'created_by',
  'created_by_user_id',
  'last_used_at',
  'expires_at',
  'revoked_at',
  'reads_per_minute',
  'writes_per_minute',
] as const;

/** An API key without its hash. */
export type ApiKeyRow = Pick<Selectable<ApiKeyTable>, (typeof KEY_COLUMNS)[number]>;

export async function insertApiKey(tx: Tx, row: Insertable<ApiKeyTable>): Promise<void> {
  await tx.db.insertInto('api_keys').values(row).execute();
}

/** The keys of a brand, or of every brand without one; newest first. */
export function selectApiKeys({ db }: Store, brandId?: string): Promise<ApiKeyRow[]> {
  const q = db.selectFrom('api_keys').select(KEY_COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc');
  return (brandId ? q.where('brand_id', '=', brandId) : q).execute();
}

/** The key with this id (of this brand, when given). */
export function selectApiKey({ db }: Store, id: string, brandId?: string): Promise<ApiKeyRow | undefined> {
  const q = db.selectFrom('api_keys').select(KEY_COLUMNS).where('id', '=', id);
  return (brandId ? q.where('brand_id', '=', brandId) : q).executeTakeFirst();
}

/** Revokes the key with this id (of this brand, when given) unless it is revoked already. */
export async function revokeApiKey(
  tx: Tx,
  id: string,
  brandId: string | undefined,
  now: number,
): Promise<void> {
  const q = tx.db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null);
  await (brandId ? q.where('brand_id', '=', brandId) : q).execute();
}

/** What a request's key resolves to: the key with this hash. */
export function selectKeyByHash(
  { db }: Store,
  keyHash: string,
): Promise<
  | Pick<
      Selectable<ApiKeyTable>,
      | 'id'
      | 'name'
      | 'brand_id'
      | 'scopes'
      | 'expires_at'
      | 'revoked_at'
      | 'reads_per_minute'
      | 'writes_per_minute'
    >
  | undefined
> {
  return db
    .selectFrom('api_keys')
    .select([
      'id',
      'name',
      'brand_id',
      'scopes',
      'expires_at',
      'revoked_at',
      'reads_per_minute',
      'writes_per_minute',
    ])
    .where('key_hash', '=', keyHash)
    .executeTakeFirst();
}

/** Sets the key's last use to `now` unless it was set within `intervalMs` before. */
export async function touchApiKey(tx: Tx, id: string, now: number, intervalMs: number): Promise<void> {
  await tx.db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', now - intervalMs)]))
    .execute();
}

// Sessions

export async function insertSession(tx: Tx, row: Insertable<SessionTable>): Promise<void> {
  await tx.db.insertInto('sessions').values(row).execute();
}

/** A session with its user and their brand. */
export type SessionRow = Pick<
  Selectable<SessionTable>,
  'csrf_token' | 'created_at' | 'last_seen_at' | 'expires_at'
> &
  Pick<Selectable<UserTable>, 'email' | 'name' | 'role' | 'disabled_at' | 'language'> &
  Pick<Selectable<BrandTable>, 'time_zone'> & {
    user_id: Selectable<UserTable>['id'];
    brand_id: Selectable<BrandTable>['id'];
    brand_name: Selectable<BrandTable>['name'];
    brand_country: Selectable<BrandTable>['default_country'];
  };

export function selectSession({ db }: Store, id: string): Promise<SessionRow | undefined> {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('brands as b', 'b.id', 'u.brand_id')
    .select([
      's.csrf_token',
      's.created_at',
      's.last_seen_at',
      's.expires_at',
      'u.id as user_id',
      'u.email',
      'u.name',
      'u.role',
      'u.disabled_at',
      'u.language',
      'b.id as brand_id',
      'b.name as brand_name',
      'b.time_zone',
      'b.default_country as brand_country',
    ])
    .where('s.id', '=', id)
    .executeTakeFirst();
}

export async function updateSession(tx: Tx, id: string, set: Updateable<SessionTable>): Promise<void> {
  await tx.db.updateTable('sessions').set(set).where('id', '=', id).execute();
}

export async function deleteSession(tx: Tx, id: string): Promise<void> {
  await tx.db.deleteFrom('sessions').where('id', '=', id).execute();
}

/** Every session that expired by `now`, of anyone. */
export async function deleteExpiredSessions(tx: Tx, now: number): Promise<void> {
  await tx.db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
}

/** Ends the user's sessions, all of them or all but `exceptId`. Returns how many. */
export async function deleteSessionsOfUser(tx: Tx, userId: string, exceptId?: string): Promise<number> {
  const q = tx.db.deleteFrom('sessions').where('user_id', '=', userId);
  const ended = await (exceptId === undefined ? q : q.where('id', '!=', exceptId)).executeTakeFirst();
  return Number(ended.numDeletedRows);
}

// Sign-in failures (also counting password changes and reset requests: see SignInFailureTable)

export async function insertFailures(tx: Tx, subjects: readonly string[], at: number): Promise<void> {
  await tx.db
    .insertInto('sign_in_failures')
    .values(subjects.map((subject) => ({ subject, at })))
    .execute();
}

/** The failures of `subject`, of any age. */
export async function deleteFailures(tx: Tx, subject: string): Promise<void> {
  await tx.db.deleteFrom('sign_in_failures').where('subject', '=', subject).execute();
}

/** Every failure at or before `cutoff`, of any subject. */
export async function deleteFailuresUpTo(tx: Tx, cutoff: number): Promise<void> {
  await tx.db.deleteFrom('sign_in_failures').where('at', '<=', cutoff).execute();
}

/** The sign-in failures of an account from every address ("pair:<address>|<email>"). */
export async function deleteAccountPairFailures(tx: Tx, emailNormalized: string): Promise<void> {
  // An address has no "|", so the email is everything after the first one. Kysely has no LIKE … ESCAPE.
  const escaped = emailNormalized.slice(0, 320).replace(/[!%_]/g, (c) => `!${c}`);
  await tx.db
    .deleteFrom('sign_in_failures')
    .where(sql<boolean>`subject like ${`pair:%|${escaped}`} escape '!'`)
    .execute();
}

/** Failures of one subject after a time: how many, the first and last, and how many after `recentAfter`. */
export interface FailureStats {
  subject: string;
  n: number;
  first: number;
  last: number;
  recent: number;
}

/** The failures of each of `subjects` after `since` (subjects without any are left out). */
export async function selectFailureStats(
  { db }: Store,
  subjects: readonly string[],
  since: number,
  recentAfter: number = since,
): Promise<FailureStats[]> {
  const rows = await db
    .selectFrom('sign_in_failures')
    .select((eb) => [
      'subject',
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.min('at').as('first'),
      eb.fn.max('at').as('last'),
      eb.fn.sum<number | string>(eb.case().when('at', '>', recentAfter).then(1).else(0).end()).as('recent'),
    ])
    .where('subject', 'in', [...subjects])
    .where('at', '>', since)
    .groupBy('subject')
    .execute();
  return rows.map((row) => ({
    subject: row.subject,
    n: Number(row.n),
    first: Number(row.first),
    last: Number(row.last),
    recent: Number(row.recent),
  }));
}

// Setup tokens

export async function insertSetupToken(tx: Tx, tokenHash: string, now: number): Promise<void> {
  await tx.db.insertInto('setup_tokens').values({ token_hash: tokenHash, created_at: now }).execute();
}

export async function setupTokenExists({ db }: Store, tokenHash: string): Promise<boolean> {
  const row = await db
    .selectFrom('setup_tokens')
    .select('token_hash')
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes the setup token with this hash; false when there is none (any more). */
export async function deleteSetupToken(tx: Tx, tokenHash: string): Promise<boolean> {
  const deleted = await tx.db
    .deleteFrom('setup_tokens')
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows) === 1;
}

export async function deleteAllSetupTokens(tx: Tx): Promise<void> {
  await tx.db.deleteFrom('setup_tokens').execute();
}

// Invitations

const INVITE_COLUMNS = ['id', 'brand_id', 'email', 'role', 'invited_by', 'created_at', 'expires_at'] as const;

/** An invitation without its token hash. */
export type InviteRow = Pick<Selectable<UserInviteTable>, (typeof INVITE_COLUMNS)[number]>;

export async function insertInvite(tx: Tx, row: Insertable<UserInviteTable>): Promise<void> {
  await tx.db.insertInto('user_invites').values(row).execute();
}

/** The brand's invitations of this email (lower case). */
export async function deleteInvitesOf(tx: Tx, brandId: string, emailNormalized: string): Promise<void> {
  await tx.db
    .deleteFrom('user_invites')
    .where('brand_id', '=', brandId)
    .where('email_normalized', '=', emailNormalized)
    .execute();
}

/** The brand's invitations that have not expired at `now`, newest first. */
export function selectLiveInvites({ db }: Store, brandId: string, now: number): Promise<InviteRow[]> {
  return db
    .selectFrom('user_invites')
    .select(INVITE_COLUMNS)
    .where('brand_id', '=', brandId)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute();
}

/**
 * The unexpired invitation whose link token has this hash: the link shown to the admin (token_hash) or the emailed
 * one (mail_token_hash).
 */
export function selectLiveInvite(
  { db }: Store,
  tokenHash: string,
  now: number,
): Promise<InviteRow | undefined> {
  return db
    .selectFrom('user_invites')
    .select(INVITE_COLUMNS)
    .where((eb) => eb.or([eb('token_hash', '=', tokenHash), eb('mail_token_hash', '=', tokenHash)]))
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** The unexpired invitation with this id. */
export function selectLiveInviteById({ db }: Store, id: string, now: number): Promise<InviteRow | undefined> {
  return db
    .selectFrom('user_invites')
    .select(INVITE_COLUMNS)
    .where('id', '=', id)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Sets the hash of the emailed link's token of an unexpired invitation; false when it is gone or expired. */
export async function setInviteMailToken(
  tx: Tx,
  id: string,
  tokenHash: string,
  now: number,
): Promise<boolean> {
  const updated = await tx.db
    .updateTable('user_invites')
    .set({ mail_token_hash: tokenHash })
    .where('id', '=', id)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Deletes the brand's invitation; false when it has none by that id. */
export async function deleteInvite(tx: Tx, brandId: string, id: string): Promise<boolean> {
  const result = await tx.db
    .deleteFrom('user_invites')
    .where('id', '=', id)
    .where('brand_id', '=', brandId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Uses up the unexpired invitation whose token has this hash; false when there is none (any more). */
export async function deleteLiveInvite(tx: Tx, tokenHash: string, now: number): Promise<boolean> {
  const used = await tx.db
    .deleteFrom('user_invites')
    .where((eb) => eb.or([eb('token_hash', '=', tokenHash), eb('mail_token_hash', '=', tokenHash)]))
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(used.numDeletedRows) === 1;
}

// Password resets

export async function insertPasswordReset(tx: Tx, row: Insertable<PasswordResetTable>): Promise<void> {
  await tx.db.insertInto('password_resets').values(row).execute();
}

/** The user of an unexpired reset, by its id (whether or not its mail is sent yet). */
export async function selectLiveResetUserIdById(
  { db }: Store,
  id: string,
  now: number,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('password_resets')
    .select('user_id')
    .where('id', '=', id)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.user_id;
}

/** Sets the hash of the token of an unexpired reset's link; false when it is gone (used, replaced) or expired. */
export async function setResetToken(tx: Tx, id: string, tokenHash: string, now: number): Promise<boolean> {
  const updated = await tx.db
    .updateTable('password_resets')
    .set({ token_hash: tokenHash })
    .where('id', '=', id)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** The user of the unexpired reset link whose token has this hash. */
export async function selectLiveResetUserId(
  { db }: Store,
  tokenHash: string,
  now: number,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('password_resets')
    .select('user_id')
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.user_id;
}

/** Uses up the user's unexpired reset link whose token has this hash; false when there is none (any more). */
export async function deleteLiveReset(
  tx: Tx,
  tokenHash: string,
  userId: string,
  now: number,
): Promise<boolean> {
  const used = await tx.db
    .deleteFrom('password_resets')
    .where('token_hash', '=', tokenHash)
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(used.numDeletedRows) === 1;
}

export async function deleteResetsOfUser(tx: Tx, userId: string): Promise<void> {
  await tx.db.deleteFrom('password_resets').where('user_id', '=', userId).execute();
}

/** Every reset link that expired by `now`, of anyone. */
export async function deleteExpiredResets(tx: Tx, now: number): Promise<void> {
  await tx.db.deleteFrom('password_resets').where('expires_at', '<=', now).execute();
}

// Dashboard flashes

export async function insertFlash(tx: Tx, row: Insertable<DashboardFlashTable>): Promise<void> {
  await tx.db.insertInto('dashboard_flashes').values(row).execute();
}

export function selectFlash(
  { db }: Store,
  sessionId: string,
  name: string,
): Promise<Pick<Selectable<DashboardFlashTable>, 'payload' | 'expires_at'> | undefined> {
  return db
    .selectFrom('dashboard_flashes')
    .select(['payload', 'expires_at'])
    .where('session_id', '=', sessionId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** Deletes the session's flash of this name; false when there is none (any more). */
export async function deleteFlash(tx: Tx, sessionId: string, name: string): Promise<boolean> {
  const deleted = await tx.db
    .deleteFrom('dashboard_flashes')
    .where('session_id', '=', sessionId)
    .where('name', '=', name)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows) === 1;
}

/** Every flash that expired by `now`, of anyone. */
export async function deleteExpiredFlashes(tx: Tx, now: number): Promise<void> {
  await tx.db.deleteFrom('dashboard_flashes').where('expires_at', '<=', now).execute();
}

/** Erasure: deletes every flash whose payload mentions one of these values (lower case), of anyone. */
export async function deleteFlashesMentioning(tx: Tx, values: readonly string[]): Promise<void> {
  if (!values.length) return;
  await tx.db
    .deleteFrom('dashboard_flashes')
    .where(mentionsAny('payload', values, true))
    .execute();
}

// Calendar feeds (calendar-feeds.ts)

export type CalendarTokenColumn = 'calendar_token' | 'brand_calendar_token';

/** The user's feed tokens, role and brand (any user, disabled too: the caller decides). */
export function selectCalendarTokens(
  { db }: Store,
  userId: string,
): Promise<
  | Pick<
      Selectable<UserTable>,
      'id' | 'brand_id' | 'role' | 'email' | 'calendar_token' | 'brand_calendar_token'
    >
  | undefined
> {
  return db
    .selectFrom('users')
    .select(['id', 'brand_id', 'role', 'email', 'calendar_token', 'brand_calendar_token'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

/** Sets one of the user's feed tokens; `onlyIfNull`: unless one was set meanwhile (false then). */
export async function updateCalendarToken(
  tx: Tx,
  userId: string,
  column: CalendarTokenColumn,
  token: string,
  onlyIfNull: boolean,
): Promise<boolean> {
  let query = tx.db
    .updateTable('users')
    .set({ [column]: token })
    .where('id', '=', userId);
  if (onlyIfNull) query = query.where(column, 'is', null);
  const updated = await query.executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** The active user whose feed this token opens, and which feed. */
export async function selectCalendarTokenOwner(
  { db }: Store,
  token: string,
): Promise<{ id: string; brand_id: string; role: string; column: CalendarTokenColumn } | undefined> {
  const row = await db
    .selectFrom('users')
    .select(['id', 'brand_id', 'role', 'calendar_token'])
    .where((eb) => eb.or([eb('calendar_token', '=', token), eb('brand_calendar_token', '=', token)]))
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const column = row.calendar_token === token ? 'calendar_token' : 'brand_calendar_token';
  return { id: row.id, brand_id: row.brand_id, role: row.role, column };
}

/** Whether the brand sends its customers visit notices (Settings > Brand). */
export async function selectVisitNoticesOn({ db }: Store, brandId: string): Promise<boolean> {
  const row = await db
    .selectFrom('brands')
    .select('visit_notices')
    .where('id', '=', brandId)
    .executeTakeFirst();
  return row?.visit_notices === 1;
}
