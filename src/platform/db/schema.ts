// Table interfaces for Kysely. Times are stored as integer milliseconds since the epoch (UTC) on both dialects.
import type { ColumnType } from 'kysely';

/** A column added later with a default: inserts may leave it out. */
type Defaulted<T> = ColumnType<T, T | undefined, T>;
export interface BrandTable {
  id: string;
  name: string;
  default_country: string;
  /** IANA time zone the dashboard shows and takes times in (Europe/Amsterdam for NL brands, else UTC). */
  time_zone: Defaulted<string>;
  created_at: number;
  /** 'nl' | 'en': what its mails to customers and new users default to (nl for NL brands, else en). */
  language: Defaulted<string>;
  /** Months after which untouched open or cancelled leads are erased; null keeps everything (2026112801). */
  retention_months: Defaulted<number | null>;
  /** The display name in the From of the brand's mails; null: its name (2026113010). */
  mail_sender_name: Defaulted<string | null>;
  /** 'low' | 'medium' | 'high' | 'urgent': a new lead's priority when none is given; null: medium (2026113010). */
  default_priority: Defaulted<string | null>;
  /** When an admin dismissed the dashboard's "Get started" checklist; null: shown (2026113010). */
  first_run_dismissed_at: Defaulted<number | null>;
  /** 1: customers get visit notices when email is on (2026120101). */
  visit_notices: Defaulted<number>;
}

export interface UserTable {
  id: string;
  brand_id: string;
  email: string;
  email_normalized: string;
  password_hash: string;
  role: string;
  created_at: number;
  disabled_at: number | null;
  /**
   * The new-lead email they chose: 'every' (each lead), 'daily' (a summary at 08:00 in the brand's time zone) or
   * 'none'; 'every' for owners and 'none' for members until they choose (2026113005).
   */
  new_lead_mail: Defaulted<string>;
  /** When they last chose their new-lead email (0: never); a daily summary is due only after it. */
  new_lead_mail_at: Defaulted<number>;
  /** Display name (assignee, history); null: the email stands in. */
  name: Defaulted<string | null>;
  /** 'nl' | 'en': the dashboard and the mails this user reads (the brand's until they choose). */
  language: string;
  /** The secret of their calendar feed of their visits, and (admins) of all the brand's (2026120101). */
  calendar_token: Defaulted<string | null>;
  brand_calendar_token: Defaulted<string | null>;
}

export interface ApiKeyTable {
  id: string;
  brand_id: string;
  name: string;
  /** First 8 characters after the lik_ prefix, for recognising a key in lists. */
  display_prefix: string;
  key_hash: string;
  /** Space-separated scope names. */
  scopes: string;
  created_at: number;
  /** Who created the key, as named then: the user's email, or 'cli'. Kept when the user is removed. */
  created_by: string | null;
  /** The dashboard user who created it (no foreign key: removing the user leaves the key as it is). */
  created_by_user_id: string | null;
  last_used_at: number | null;
  expires_at: number | null;
  revoked_at: number | null;
  reads_per_minute: number | null;
  writes_per_minute: number | null;
}

export interface CustomerTable {
  id: string;
  brand_id: string;
  type: string;
  name: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  email_normalized: string | null;
  phone: string | null;
  company_name: string | null;
  created_at: number;
  updated_at: number;
  /** When the customer was erased; its personal fields are null from then on (2026112801). */
  erased_at: Defaulted<number | null>;
  /** The latest received_at of its leads, 0 without any; kept by triggers (2026112902). */
  last_lead_at: Defaulted<number>;
  /** SQLite only: the internal key the rows linked to it name (2026120801); the database gives it, never shown. */
  key: Defaulted<number>;
}

export interface AddressTable {
  id: string;
  /** SQLite only: the internal key the leads at it name (2026120801); the database gives it, never shown. */
  key: Defaulted<number>;
  brand_id: string;
  customer_id: string;
  /** SQLite only: its customer's key (2026120801), how a customer's addresses are found (internal-keys.ts). */
  customer_key: number;
  street: string;
  street_number: string | null;
  street_number_addition: string | null;
  postal_code: string;
  city: string;
  country: string;
  /** postal code (upper case, no spaces) | number | addition | country: what makes two addresses the same. */
  match_key: string;
  created_at: number;
  updated_at: number;
}

export interface LeadTable {
  id: string;
  brand_id: string;
  customer_id: string;
  address_id: string;
  /** SQLite only: the keys of its customer and address (2026120801), how their leads are found (internal-keys.ts). */
  customer_key: number;
  address_key: number;
  // The job's fields (title, description, category, priority, budget_quote, notes, …) are declared with the rest
  // of each field in leads/fields.ts, which adds their columns to this interface (LeadFieldColumns there).
  status: string;
  /** 'lead' (request, quoted), 'work' (scheduled and later) or 'closed' (cancelled): which list shows it. */
  stage: string;
  source: string;
  source_key_id: string | null;
  source_key_name: string | null;
  received_at: number;
  created_at: number;
  updated_at: number;
  scheduled_at: number | null;
  /** When the visit is planned (a work item); null until planned. */
  scheduled_for: Defaulted<number | null>;
  /** How long the visit takes, 15–1440 minutes. */
  duration_minutes: Defaulted<number | null>;
  /** The user of the brand who does it; null: nobody yet. */
  assignee_id: Defaulted<string | null>;
  /** The visit's iCalendar SEQUENCE: one more at each change of it (2026120101). */
  visit_sequence: Defaulted<number>;
  /** What the customer was last told of the visit: its sequence, the mail's ref, the start (2026120101). */
  visit_notice_sequence: Defaulted<number | null>;
  visit_notice_ref: Defaulted<string | null>;
  visit_notice_kind: Defaulted<string | null>;
  visit_notice_start: Defaulted<number | null>;
  /** JSON text: the contact and address as submitted (see Submitted in domain/lead-input.ts). */
  submitted: string;
  /** The form a lead came in through (source "form"), and its name then. */
  source_form_id: string | null;
  source_form_name: string | null;
  /** 1 when a form's honeypot was filled: in no list, no events. */
  spam: number;
  /** JSON text: fields the form did not know, name -> string. */
  extra_fields: string | null;
  /** JSON text: utm_* fields, referrer, landingPage. */
  attribution: string | null;
  /** JSON text: { text, at } when the form asked for consent. */
  consent: string | null;
  /** A lead typed in the dashboard (source "phone" or "dashboard"): who typed it, and their name then. */
  source_user_id: string | null;
  source_user_name: string | null;
  /** The lead's list item as JSON, or null until rendered (see migrations/2026112401_list_json.ts). */
  list_json: Defaulted<string | null>;
  /** Moves on with every change to what list_json is built from, and with every write of list_json. */
  list_rev: Defaulted<number>;
  /** How many attachments the lead has (attachments' rows), kept by the code that adds and removes them. */
  attachment_count: Defaulted<number>;
  /** When the lead's personal data was erased (2026112801). */
  erased_at: Defaulted<number | null>;
}

/** What happened to a lead besides its states: who did what, when (detail is JSON text). */
export interface LeadActivityTable {
  id: string;
  lead_id: string;
  at: number;
  kind: string;
  actor_type: 'key' | 'user' | 'form';
  actor_id: string | null;
  actor_name: string | null;
  detail: string;
}

/** What was done to a customer: updated, merged, exported, erased (2026112801). */
export interface CustomerActivityTable {
  id: string;
  brand_id: string;
  customer_id: string;
  at: number;
  kind: 'updated' | 'merged' | 'exported' | 'erased';
  actor_type: 'key' | 'user' | 'cli' | 'retention';
  actor_id: string | null;
  actor_name: string | null;
  /** JSON: updated `{ changed, from, to }` (after an erase `{ changed }`), merged `{ from }`, others `{}`. */
  detail: string;
}

export interface LeadStatusHistoryTable {
  lead_id: string;
  seq: number;
  status: string;
  at: number;
  /** The actor's id (kept for older readers; actor_id says the same). */
  actor: string | null;
  /** Who made the change: null only on entries written before actors were recorded and not backfillable. */
  actor_type: 'key' | 'user' | 'form' | null;
  actor_id: string | null;
  /** The actor's name then (key name, user's name or email, form name). */
  actor_name: string | null;
  /** Why, when given: only on cancellations. */
  reason: string | null;
}

/** Internal notes on a lead: never sent to the customer. */
export interface LeadNoteTable {
  id: string;
  lead_id: string;
  brand_id: string;
  text: string;
  author_type: 'key' | 'user' | 'form';
  author_id: string;
  author_name: string;
  created_at: number;
}

/** A photo or file with a request; its bytes are in the attachment storage under storage_key. */
export interface AttachmentTable {
  id: string;
  lead_id: string;
  brand_id: string;
  /** As sent, for display and downloads; never part of a path or key. */
  file_name: string;
  /** Decided from the bytes (file-type), never from the name or the declared type. */
  content_type: string;
  size: number;
  /** Hex SHA-256 of the bytes as received. */
  sha256: string;
  /** Images whose header could be read; else null. */
  width: number | null;
  height: number | null;
  source: 'form' | 'api' | 'dashboard';
  storage_key: string;
  created_at: number;
}

/** First-run setup: one row per logged setup link; all are deleted when setup completes. */
export interface SetupTokenTable {
  token_hash: string;
  created_at: number;
}

/** Dashboard sign-ins. id is the SHA-256 hash of the cookie's token, so a database leak is no session leak. */
export interface SessionTable {
  id: string;
  user_id: string;
  csrf_token: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

/**
 * Timestamps counted per subject: two rows per failed sign-in, "pair:<ip>|<email as typed>" and "address:<ip>" (see
 * domain/sign-in.ts); "change-password:<user id>" per wrong current password (domain/passwords.ts); and
 * "reset-email:<email as typed>" and "reset-address:<ip>" per "Forgot password" request (domain/password-resets.ts).
 */
export interface SignInFailureTable {
  subject: string;
  at: number;
}

/** A "Forgot password" link that can still be used (see domain/password-resets.ts). */
export interface PasswordResetTable {
  id: string;
  /**
   * SHA-256 of the token in the link, set when the mail is sent (the token itself is only in the mail); null until
   * then (2026112910).
   */
  token_hash: string | null;
  user_id: string;
  created_at: number;
  expires_at: number;
}

/** A one-time message from a form post to the page after its redirect (see domain/flashes.ts). */
export interface DashboardFlashTable {
  /** The session's id (the hash of its cookie token). */
  session_id: string;
  /** What it is, e.g. "api-key:key_…". */
  name: string;
  /** AES-256-GCM under a key derived from the session's cookie token, base64url. */
  payload: string;
  expires_at: number;
}

export interface UserInviteTable {
  token_hash: string;
  id: string;
  brand_id: string;
  email: string;
  email_normalized: string;
  role: string;
  /** Email of the user who sent the invitation. */
  invited_by: string;
  created_at: number;
  expires_at: number;
  /** SHA-256 of the token of the emailed link, set when the mail is sent; null before (2026112910). */
  mail_token_hash: Defaulted<string | null>;
}

export interface IdempotencyKeyTable {
  key_id: string;
  idempotency_key: string;
  /** sha256 of the canonical JSON request body. */
  fingerprint: string;
  state: 'in_flight' | 'completed';
  /** Random per claim: the completing transaction proves it still holds the claim it took. */
  claim_token: string;
  response_status: number | null;
  response_body: string | null;
  created_at: number;
}

export interface EventTable {
  id: string;
  brand_id: string;
  type: string;
  created_at: number;
  /** JSON text of the event's data. */
  data: string;
}

export interface WebhookEndpointTable {
  id: string;
  brand_id: string;
  url: string;
  description: string | null;
  /** Space-separated event types. */
  events: string;
  secret: string;
  /** The secret before the last rotation, still signed with until previous_secret_expires_at. */
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  enabled: number;
  /** Start of the current run of failed deliveries; null after a success. */
  failing_since: number | null;
  last_success_at: number | null;
  disabled_at: number | null;
  disabled_reason: string | null;
  created_at: number;
  updated_at: number;
}

export interface FormTable {
  id: string;
  brand_id: string;
  name: string;
  /** JSON text: an array of origins. */
  allowed_origins: string;
  redirect_url: string | null;
  honeypot_field: string;
  captcha_provider: string | null;
  captcha_site_key: string | null;
  captcha_secret: string | null;
  consent_text: string | null;
  auto_reply: number;
  default_priority: string | null;
  default_category: string | null;
  enabled: number;
  created_at: number;
  updated_at: number;
  /** 'nl' | 'en': the hosted page, the snippet's labels, its error messages and the receipt. */
  language: string;
  /** JSON text: [{ name, required }], the lead fields the form shows, in order (migrations/2026112602). */
  fields: string;
  /** JSON text: [{ key, label, type, options, required }], the form's own questions. */
  questions: string;
}

/** Posts refused for their origin, counted per form, origin (as sent, or "(none)") and UTC day; kept 30 days. */
export interface FormRefusalTable {
  form_id: string;
  origin: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  count: number;
  /** Epoch ms of the last refused post counted here. */
  last_at: number;
}

/** Receipts (auto-replies) queued per brand, recipient and UTC day (migrations/2026112915); pruned after a day. */
export interface ReceiptCountTable {
  brand_id: string;
  /** SHA-256 (hex) of the recipient's lower-case address. */
  recipient_hash: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  count: number;
}

export interface WebhookDeliveryTable {
  id: string;
  endpoint_id: string;
  event_id: string;
  /** Attempts made so far. */
  attempt: number;
  status: 'pending' | 'succeeded' | 'failed';
  next_attempt_at: number;
  lease_owner: string | null;
  /** A worker holds the row until then; 0 when nobody does. */
  lease_until: number;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  last_attempt_at: number | null;
  created_at: number;
  /** Claims in a row whose holder died with the lease (2026120110); parked at PARK_AFTER_CRASHES. */
  crashes: Defaulted<number>;
}

/** Mails to send: queued in the transaction that causes them, sent by a worker under a lease. */
export interface EmailOutboxTable {
  id: string;
  brand_id: string;
  /** What the mail is about, e.g. 'new_lead'. */
  kind: string;
  recipient: string;
  subject: string;
  text: string;
  html: string;
  status: 'pending' | 'sent' | 'failed';
  /** Attempts made so far. */
  attempt: number;
  next_attempt_at: number;
  lease_owner: string | null;
  /** A worker holds the row until then; 0 when nobody does. */
  lease_until: number;
  /** Why the last attempt failed, when it did. */
  last_error: string | null;
  last_attempt_at: number | null;
  created_at: number;
  sent_at: number | null;
  /** The lead the mail is about (new-lead mail, receipt); null for other mail (2026112801). */
  lead_id: Defaulted<string | null>;
  /**
   * A mail written when it is sent: the row it is made from (`kind` names the writer); its text and html are empty
   * here. Null: written when queued (2026112910).
   */
  send_time_ref: Defaulted<string | null>;
  /** The mail's Reply-To (the customer's email on a new-lead mail); null: none (2026113005). */
  reply_to: Defaulted<string | null>;
  /** Claims in a row whose holder died with the lease (2026120110); parked at PARK_AFTER_CRASHES. */
  crashes: Defaulted<number>;
}

/** A periodic job's lease: who runs it now, until when, and when it is next due (2026120111; lease.ts). */
export interface JobLeaseTable {
  name: string;
  owner: string | null;
  lease_until: Defaulted<number>;
  next_run_at: Defaulted<number>;
}

/** The daily new-lead summaries handled: one row per user and day, claimed by its insert (2026113005). */
export interface NewLeadSummaryTable {
  id: string;
  brand_id: string;
  user_id: string;
  /** The brand's calendar day whose 08:00 ends the window, 'YYYY-MM-DD'. */
  day: string;
  /** The leads listed came in from window_start (inclusive) to window_end (exclusive). */
  window_start: number;
  window_end: number;
  created_at: number;
}

/** Every table, for Kysely. */
export interface Tables {
  brands: BrandTable;
  users: UserTable;
  api_keys: ApiKeyTable;
  customers: CustomerTable;
  addresses: AddressTable;
  customer_activity: CustomerActivityTable;
  leads: LeadTable;
  new_lead_summaries: NewLeadSummaryTable;
  job_leases: JobLeaseTable;
  lead_status_history: LeadStatusHistoryTable;
  lead_activity: LeadActivityTable;
  lead_notes: LeadNoteTable;
  attachments: AttachmentTable;
  setup_tokens: SetupTokenTable;
  sessions: SessionTable;
  sign_in_failures: SignInFailureTable;
  user_invites: UserInviteTable;
  dashboard_flashes: DashboardFlashTable;
  password_resets: PasswordResetTable;
  idempotency_keys: IdempotencyKeyTable;
  events: EventTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  email_outbox: EmailOutboxTable;
  forms: FormTable;
  form_refusals: FormRefusalTable;
  receipt_counts: ReceiptCountTable;
}
