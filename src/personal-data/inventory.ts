// Where the service keeps data, column by column, and what an erasure does with each (contract "Personal
// data"). test/personal-data/inventory.test.ts compares it with the database's own list of columns on both
// databases: a column added without a line here fails it, so whoever adds one decides whether it can hold a
// person's data and how an erasure reaches it.
//
//   erased  holds what the person gave; an erasure blanks or removes it (personal-data/erase.ts)
//   kept    the business's own record about the job, kept on purpose (titles, states, times, planning)
//   none    holds no customer's personal data (ids, settings, counters, staff accounts, secrets)

export type ColumnRule = 'erased' | 'kept' | 'none';

const ids = (...columns: string[]) => Object.fromEntries(columns.map((c) => [c, 'none' as const]));

export const DATA_INVENTORY: Record<string, Record<string, ColumnRule>> = {
  customers: {
    ...ids('id', 'brand_id', 'created_at', 'updated_at', 'erased_at', 'last_lead_at'),
    // SQLite: the internal key the rows linked to it name (2026120801), a number in insert order.
    key: 'none',
    type: 'kept',
    name: 'erased',
    first_name: 'erased',
    last_name: 'erased',
    email: 'erased',
    email_normalized: 'erased',
    phone: 'erased',
    company_name: 'erased',
  },
  addresses: {
    ...ids('id', 'brand_id', 'customer_id', 'created_at', 'updated_at', 'key', 'customer_key'),
    street: 'erased',
    street_number: 'erased',
    street_number_addition: 'erased',
    // Holds the street: rewritten to one of the address's own.
    match_key: 'erased',
    postal_code: 'kept',
    city: 'kept',
    country: 'kept',
  },
  leads: {
    ...ids(
      'id',
      'brand_id',
      'customer_id',
      'address_id',
      'customer_key',
      'address_key',
      'created_at',
      'updated_at',
      'erased_at',
      'list_rev',
    ),
    ...ids('source_key_id', 'source_key_name', 'source_form_id', 'source_form_name'),
    ...ids('source_user_id', 'source_user_name', 'assignee_id', 'spam'),
    // Calendar and visit notices (2026120101): counters and the outbox row that told the customer.
    ...ids('visit_sequence', 'visit_notice_sequence', 'visit_notice_ref', 'visit_notice_kind'),
    // The start the customer was last told of: planning, like scheduled_for.
    visit_notice_start: 'kept',
    title: 'kept',
    category: 'kept',
    priority: 'kept',
    status: 'kept',
    stage: 'kept',
    source: 'kept',
    received_at: 'kept',
    scheduled_at: 'kept',
    scheduled_for: 'kept',
    duration_minutes: 'kept',
    description: 'erased',
    budget_quote: 'erased',
    notes: 'erased',
    submitted: 'erased',
    extra_fields: 'erased',
    attribution: 'erased',
    consent: 'erased',
    // The ready list item: cleared by the triggers, rendered again from the erased row.
    list_json: 'erased',
    attachment_count: 'erased',
  },
  lead_status_history: {
    ...ids('lead_id', 'seq', 'actor', 'actor_type', 'actor_id', 'actor_name'),
    status: 'kept',
    at: 'kept',
    // The office's words on a cancellation.
    reason: 'kept',
  },
  lead_activity: {
    ...ids('id', 'lead_id', 'at', 'kind', 'actor_type', 'actor_id', 'actor_name'),
    // An edit's values before and after: only the names of the fields changed stay.
    detail: 'erased',
  },
  lead_notes: {
    ...ids('id', 'lead_id', 'brand_id', 'author_type', 'author_id', 'author_name', 'created_at'),
    text: 'erased',
  },
  attachments: {
    ...ids('id', 'lead_id', 'brand_id', 'content_type', 'size', 'sha256', 'width', 'height', 'source'),
    ...ids('storage_key', 'created_at'),
    // The rows go, and their files in storage.
    file_name: 'erased',
  },
  customer_activity: {
    ...ids('id', 'brand_id', 'customer_id', 'at', 'kind', 'actor_type', 'actor_id', 'actor_name'),
    // An edit's values: only the names of the fields changed stay.
    detail: 'erased',
  },
  events: {
    ...ids('id', 'brand_id', 'type', 'created_at'),
    // Every record of the person in it blanked; deliveries send the data as it is when they are sent.
    data: 'erased',
  },
  webhook_deliveries: {
    ...ids('id', 'endpoint_id', 'event_id', 'attempt', 'status', 'next_attempt_at', 'lease_owner'),
    ...ids('lease_until', 'response_status', 'duration_ms', 'last_attempt_at', 'created_at', 'crashes'),
    // The receiver's error text (status line, connection error): not the event.
    error: 'none',
  },
  email_outbox: {
    ...ids('id', 'brand_id', 'kind', 'status', 'attempt', 'next_attempt_at', 'lease_owner', 'lease_until'),
    ...ids('crashes'),
    ...ids('last_error', 'last_attempt_at', 'created_at', 'sent_at', 'lead_id', 'send_time_ref'),
    // Mail about the person's leads and to their address is deleted.
    recipient: 'erased',
    subject: 'erased',
    text: 'erased',
    html: 'erased',
    // The customer's email on a new-lead mail: deleted with the mail about their lead.
    reply_to: 'erased',
  },
  idempotency_keys: {
    ...ids('key_id', 'idempotency_key', 'state', 'claim_token', 'response_status', 'created_at'),
    // A SHA-256 of the whole request body: no value can be read back from it.
    fingerprint: 'none',
    response_body: 'erased',
  },
  dashboard_flashes: {
    ...ids('session_id', 'name', 'expires_at'),
    payload: 'erased',
  },
  // The search index (SQLite FTS5 and its own tables; PostgreSQL lead_search): written again by the triggers
  // and, on SQLite, compacted so no older segment keeps the words.
  lead_search: { body: 'erased', lead_id: 'none', brand_id: 'none' },
  lead_search_rows: ids('id', 'lead_id'),
  // SQLite (2026120201): the rowids of leads whose document the commit is still to write; emptied at every
  // commit and by a lead's delete. Its documents are a view (lead_search_pending_documents): nothing stored.
  lead_search_pending: ids('id'),
  lead_search_data: { id: 'none', block: 'erased' },
  lead_search_idx: { segid: 'none', term: 'erased', pgno: 'none' },
  lead_search_docsize: { id: 'none', sz: 'none', origin: 'none' },
  lead_search_config: ids('k', 'v'),
  // The business's own settings and staff: no customer's data.
  brands: {
    ...ids('id', 'name', 'default_country', 'created_at', 'time_zone', 'language', 'retention_months'),
    // Migration 2026113010: the mail sender name, default priority and when "Get started" was dismissed.
    ...ids('mail_sender_name', 'default_priority', 'first_run_dismissed_at'),
    // Settings > Brand: customers' visit notices on or off (2026120101).
    ...ids('visit_notices'),
    // SQLite only: the brand's rowid range in the search index (migration 2026112901).
    ...ids('search_key'),
  },
  users: {
    ...ids('id', 'brand_id', 'email', 'email_normalized', 'password_hash', 'role', 'created_at'),
    ...ids('disabled_at', 'new_lead_mail', 'new_lead_mail_at', 'name', 'language'),
    // The secrets of the user's calendar feeds (2026120101): staff's, no customer's data; in clear on purpose
    // (docs/calendar.md, "The feed's token").
    ...ids('calendar_token', 'brand_calendar_token'),
  },
  api_keys: {
    ...ids('id', 'brand_id', 'name', 'display_prefix', 'key_hash', 'scopes', 'created_at', 'created_by'),
    ...ids('last_used_at', 'expires_at', 'revoked_at', 'reads_per_minute', 'writes_per_minute'),
    ...ids('created_by_user_id'),
  },
  forms: {
    ...ids('id', 'brand_id', 'name', 'allowed_origins', 'redirect_url', 'honeypot_field', 'captcha_provider'),
    ...ids('captcha_site_key', 'captcha_secret', 'consent_text', 'auto_reply', 'default_priority'),
    ...ids('default_category', 'enabled', 'created_at', 'updated_at', 'language', 'fields', 'questions'),
  },
  // A refused post's origin (a web site) and a count per day.
  form_refusals: ids('form_id', 'origin', 'day', 'count', 'last_at'),
  // Receipts counted per recipient and day: a SHA-256 of the address, not the address, and gone after a day.
  receipt_counts: ids('brand_id', 'recipient_hash', 'day', 'count'),
  // Which instance runs a periodic job and when it is next due (2026120111): no person's data.
  job_leases: ids('name', 'owner', 'lease_until', 'next_run_at'),
  webhook_endpoints: {
    ...ids('id', 'brand_id', 'url', 'description', 'events', 'secret', 'previous_secret'),
    ...ids('previous_secret_expires_at', 'enabled', 'failing_since', 'last_success_at', 'disabled_at'),
    ...ids('disabled_reason', 'created_at', 'updated_at'),
  },
  sessions: ids('id', 'user_id', 'csrf_token', 'created_at', 'last_seen_at', 'expires_at'),
  // A staff sign-in's subject (their email or address), pruned after the window.
  sign_in_failures: ids('subject', 'at'),
  // Which daily new-lead summaries were handled: ids and times only; the mail is written when sent, from the leads.
  new_lead_summaries: ids('id', 'brand_id', 'user_id', 'day', 'window_start', 'window_end', 'created_at'),
  password_resets: ids('id', 'token_hash', 'user_id', 'created_at', 'expires_at'),
  setup_tokens: ids('token_hash', 'created_at'),
  user_invites: {
    ...ids('token_hash', 'id', 'brand_id', 'email', 'email_normalized', 'role', 'invited_by'),
    ...ids('created_at', 'expires_at', 'mail_token_hash'),
  },
  kysely_migration: ids('name', 'timestamp'),
  kysely_migration_lock: ids('id', 'is_locked'),
};
