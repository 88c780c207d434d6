// Error pages: what went wrong in plain words, and where to go next.
import type { SessionUser } from '../../domain/sessions.js';
import { html, type SafeHtml } from '../html.js';
import { page, plainPage } from './layout.js';

export function errorPage(
  title: string,
  message: string,
  user: SessionUser | null,
  requestId?: string,
): SafeHtml {
  const body = html`<h1>${title}</h1>
<p>${message}</p>
${requestId ? html`<p class="muted">Request id: <code>${requestId}</code></p>` : ''}
<p><a href="${user ? '/dashboard/leads' : '/sign-in'}">${user ? 'Go to leads' : 'Go to sign-in'}</a></p>`;
  return user
    ? page({ title, user, body: html`<div class="card narrow">${body}</div>` })
    : plainPage(title, body);
}
