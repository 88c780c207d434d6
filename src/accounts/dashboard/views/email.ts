// Email on Settings > Users: whether email is on (and who mails come from), each person's "Email me new leads"
// with a switch for the signed-in person's own, and the brand's mails that could not be sent.
import type { FailedEmail } from '../../../mail/outbox.js';
import { csrfField, time } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { SessionUser } from '../../sessions.js';
import type { ListedUser } from '../../users.js';

export const NEW_LEAD_EMAILS_PATH = '/dashboard/settings/users/me/new-lead-emails';

export interface EmailView {
  /** MAIL_FROM when email is on; null when it is off. */
  from: string | null;
  /** Recent mails of the brand that were never sent, newest first. */
  failed: FailedEmail[];
}

/** The "Email me new leads" cell of one person: on or off, and for the signed-in person a button to switch it. */
export function newLeadEmailsCell(viewer: SessionUser, person: ListedUser): SafeHtml {
  const state = person.notifyNewLeads ? 'On' : 'Off';
  if (person.id !== viewer.userId) return html`${state}`;
  const next = person.notifyNewLeads ? 'off' : 'on';
  return html`<form method="post" action="${NEW_LEAD_EMAILS_PATH}">
    ${csrfField(viewer.csrfToken)}
    <input type="hidden" name="notify" value="${next}">
    ${state} <button type="submit" class="button button-quiet">Turn ${next}<span class="visually-hidden"> new-lead emails for you</span></button>
  </form>`;
}

/** Headed "Notifications", not "Email": the add-person form's field is labelled Email. */
export function emailSection(view: EmailView): SafeHtml {
  return html`<section aria-labelledby="email-title">
  <h2 id="email-title">Notifications</h2>
  ${
    view.from
      ? html`<p>Email is <strong>on</strong>. Mails come from <span class="mono">${view.from}</span>. People with “Email me new leads” on get a mail for each new lead.</p>`
      : html`<p>Email is <strong>off</strong>: nothing is mailed. The server's administrator turns it on by setting <code>SMTP_URL</code> and <code>MAIL_FROM</code>.</p>`
  }
  ${failedTable(view.failed)}
</section>`;
}

function failedTable(failed: FailedEmail[]): SafeHtml | '' {
  if (!failed.length) return '';
  return html`<h3 id="failed-mails-title">Mails that could not be sent</h3>
  <p class="muted">Each was tried for 24 hours (or refused for good by the mail server), then given up.</p>
  <table class="list" aria-labelledby="failed-mails-title">
    <thead><tr><th scope="col">Recipient</th><th scope="col">Subject</th><th scope="col">Last error</th><th scope="col">Given up</th></tr></thead>
    <tbody>${failed.map(
      (mail) => html`<tr>
      <td data-label="Recipient" class="cell-title">${mail.recipient}</td>
      <td data-label="Subject">${mail.subject}</td>
      <td data-label="Last error" class="mono">${mail.lastError ?? '—'}</td>
      <td data-label="Given up">${time(mail.failedAt)}</td>
    </tr>`,
    )}</tbody>
  </table>`;
}
