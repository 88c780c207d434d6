// Error pages: what went wrong in plain words, and where to go next.
import { type HtmlValue, html, type SafeHtml } from './html.js';
import { page, plainPage, type Viewer } from './layout.js';

export function errorPage(title: string, message: string, user: Viewer | null, requestId?: string): SafeHtml {
  const body = html`<h1>${title}</h1>
<p>${message}</p>
${requestId ? html`<p class="muted">Request id: <code>${requestId}</code></p>` : ''}
<p><a href="${user ? '/dashboard/leads' : '/sign-in'}">${user ? 'Go to leads' : 'Go to sign-in'}</a></p>`;
  return user
    ? page({ title, user, body: html`<div class="card narrow">${body}</div>` })
    : plainPage(title, body);
}

/** "Ask a, b or c": up to three admins by email, or "an admin" when none can be named. */
function askAdmins(emails: readonly string[]): SafeHtml {
  const links: HtmlValue[] = emails.slice(0, 3).map((email) => html`<a href="mailto:${email}">${email}</a>`);
  if (emails.length > links.length) links.push('another admin');
  if (!links.length) links.push('an admin');
  const joined = links.map(
    (link, i) => html`${i === 0 ? '' : i === links.length - 1 ? ' or ' : ', '}${link}`,
  );
  return html`Ask ${joined} if something here needs doing.`;
}

/**
 * The 403 a member gets on an admin-only page: what only admins do, and whom to ask. `what` completes "Only an
 * admin of <brand> can …".
 */
export function adminOnlyPage(user: Viewer, what: string, adminEmails: readonly string[]): SafeHtml {
  const body = html`<h1>Admins only</h1>
<p>Only an admin of ${user.brandName} can ${what}. You are signed in as a member, for leads, work items and customers.</p>
<p>${askAdmins(adminEmails)}</p>
<p><a href="/dashboard/leads">Go to leads</a></p>`;
  return page({ title: 'Admins only', user, body: html`<div class="card narrow">${body}</div>` });
}
