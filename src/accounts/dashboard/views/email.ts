// Email on Settings > Users: whether email is on (and who mails come from), each person's new-lead email (every
// lead, a daily summary, none) with a link to the signed-in person's own choice, and the brand's mails that could
// not be sent.
import type { FailedEmail } from '../../../mail/outbox.js';
import { time } from '../../../platform/web/components.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { richText } from '../../../platform/web/messages.js';
import type { MessageKey, Translator } from '../../../shared/i18n/index.js';
import type { SessionUser } from '../../sessions.js';
import type { ListedUser, NewLeadMail } from '../../users.js';

/** Where each person chooses their own new-lead email (Settings > Your account). */
export const NEW_LEAD_MAIL_PATH = '/dashboard/settings/account/new-lead-mail';

export interface EmailView {
  /** MAIL_FROM when email is on; null when it is off. */
  from: string | null;
  /** Recent mails of the brand that were never sent, newest first. */
  failed: FailedEmail[];
}

const CHOICE_LABELS: Record<NewLeadMail, MessageKey> = {
  every: 'users.newLeadEmails.every',
  daily: 'users.newLeadEmails.daily',
  none: 'users.newLeadEmails.none',
};

/**
 * The new-lead email cell of one person: what they chose (every lead, a daily summary, none), and for the
 * signed-in person a link to where they change it. Nobody changes someone else's.
 */
export function newLeadEmailsCell(tr: Translator, viewer: SessionUser, person: ListedUser): SafeHtml {
  const state = tr.t(CHOICE_LABELS[person.newLeadMail]);
  if (person.id !== viewer.userId) return html`${state}`;
  const hidden = (inner: SafeHtml) => html`<span class="visually-hidden">${inner}</span>`;
  return html`${state} <a href="/dashboard/settings/account#new-lead-mail">${richText(tr, 'users.newLeadEmails.change', { hidden })}</a>`;
}

/** Headed "Notifications", not "Email": the add-person form's field is labelled Email. */
export function emailSection(tr: Translator, view: EmailView): SafeHtml {
  const strong = (inner: SafeHtml) => html`<strong>${inner}</strong>`;
  return html`<section aria-labelledby="email-title">
  <h2 id="email-title">${tr.t('users.notifications.title')}</h2>
  ${
    view.from
      ? html`<p>${richText(tr, 'users.notifications.on', { from: html`<span class="mono">${view.from}</span>`, strong })}</p>`
      : html`<p>${richText(tr, 'users.notifications.off', { strong, code: (inner) => html`<code>${inner}</code>` })}</p>`
  }
  ${failedTable(tr, view.failed)}
</section>`;
}

function failedTable(tr: Translator, failed: FailedEmail[]): SafeHtml | '' {
  if (!failed.length) return '';
  const h = {
    recipient: tr.t('users.failedMails.recipient'),
    subject: tr.t('users.failedMails.subject'),
    lastError: tr.t('users.failedMails.lastError'),
    givenUp: tr.t('users.failedMails.givenUp'),
  };
  return html`<h3 id="failed-mails-title">${tr.t('users.failedMails.title')}</h3>
  <p class="muted">${tr.t('users.failedMails.explain')}</p>
  <table class="list" aria-labelledby="failed-mails-title">
    <thead><tr><th scope="col">${h.recipient}</th><th scope="col">${h.subject}</th><th scope="col">${h.lastError}</th><th scope="col">${h.givenUp}</th></tr></thead>
    <tbody>${failed.map(
      (mail) => html`<tr>
      <td data-label="${h.recipient}" class="cell-title">${mail.recipient}</td>
      <td data-label="${h.subject}">${mail.subject}</td>
      <td data-label="${h.lastError}" class="mono">${mail.lastError ?? '—'}</td>
      <td data-label="${h.givenUp}">${time(mail.failedAt)}</td>
    </tr>`,
    )}</tbody>
  </table>`;
}
