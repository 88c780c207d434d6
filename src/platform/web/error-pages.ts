// Error pages: what went wrong in plain words, and where to go next, in the reader's language.
import { INTL_LOCALE, type Locale, type MessageKey, translator } from '../../shared/i18n/index.js';
import { html, type SafeHtml } from './html.js';
import { page, plainPage, type Viewer } from './layout.js';
import { richText } from './messages.js';

/** What an error page says: its title and message as catalog keys (with values), or a message already in words. */
export interface ErrorText {
  title: MessageKey;
  message: MessageKey;
  values?: Record<string, string | number>;
}

export function errorPage(
  text: ErrorText,
  user: Viewer | null,
  locale: Locale,
  requestId?: string,
): SafeHtml {
  const tr = translator(user?.locale ?? locale);
  const title = tr.t(text.title);
  const body = html`<h1>${title}</h1>
<p>${tr.t(text.message, text.values)}</p>
${requestId ? html`<p class="muted">${tr.t('error.requestId')} <code>${requestId}</code></p>` : ''}
<p><a href="${user ? '/dashboard/leads' : '/sign-in'}">${tr.t(user ? 'error.goToLeads' : 'error.goToSignIn')}</a></p>`;
  return user
    ? page({ title, user, body: html`<div class="card narrow">${body}</div>` })
    : plainPage(tr.locale, title, body);
}

/** "Ask a, b or c": up to three admins by email (joined as the language joins a list), or "an admin". */
function askAdmins(user: Viewer, emails: readonly string[]): SafeHtml {
  const tr = translator(user.locale);
  const named = emails.slice(0, 3);
  if (!named.length) return html`${tr.t('error.adminOnly.askAnyAdmin')}`;
  const links = named.map((email) => html`<a href="mailto:${email}">${email}</a>`);
  // ListFormat joins stand-ins, never our markup: each link is put in its stand-in's place afterwards.
  const list = new Intl.ListFormat(INTL_LOCALE[tr.locale], {
    type: emails.length > named.length ? 'conjunction' : 'disjunction',
  });
  const admins = list
    .formatToParts(named.map((_, i) => String(i)))
    .map((part) => (part.type === 'element' ? links[Number(part.value)] : part.value));
  const key = emails.length > named.length ? 'error.adminOnly.askNamedOrAnother' : 'error.adminOnly.askNamed';
  return richText(tr, key, { admins: html`${admins}` });
}

/**
 * The 403 a member gets on an admin-only page: what only admins do, and whom to ask. `task` is a catalog key
 * completing "Only an admin of <brand> can …".
 */
export function adminOnlyPage(user: Viewer, task: MessageKey, adminEmails: readonly string[]): SafeHtml {
  const tr = translator(user.locale);
  const body = html`<h1>${tr.t('error.adminOnly.title')}</h1>
<p>${tr.t('error.adminOnly.message', { brand: user.brandName, task: tr.t(task) })}</p>
<p>${askAdmins(user, adminEmails)}</p>
<p><a href="/dashboard/leads">${tr.t('error.goToLeads')}</a></p>`;
  return page({
    title: tr.t('error.adminOnly.title'),
    user,
    body: html`<div class="card narrow">${body}</div>`,
  });
}
