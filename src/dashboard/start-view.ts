// /dashboard/start, "Get started": the first-run checklist that leads a new business to its website form first (set
// up the form, paste the snippet, send a test lead, see the mail), then to the rest. Each step ticks itself off from
// what is really there; everything works without the page script (the copy buttons are its only extra).

import type { SessionUser } from '../accounts/sessions.js';
import type { LatestMail } from '../mail/outbox.js';
import { csrfField, errorText, notice } from '../platform/web/components.js';
import { html, type SafeHtml } from '../platform/web/html.js';
import { page } from '../platform/web/layout.js';
import { richText } from '../platform/web/messages.js';
import type { FieldError } from '../shared/errors.js';
import { type Translator, translator } from '../shared/i18n/index.js';

export const START_PATH = '/dashboard/start';

export interface StartView {
  user: SessionUser;
  /** The brand's website form the steps are about (the first one), with its snippet and hosted page. */
  form: { id: string; name: string; endpoint: string; snippet: string; allowedOrigins: string[] } | null;
  /** The first lead a form brought in: the test lead. */
  testLead: { id: string; title: string; customerId: string } | null;
  /** Email: off (no SMTP_URL / MAIL_FROM), or on with the newest new-lead mail, if any. */
  mail: { on: false } | { on: true; from: string; latest: LatestMail | undefined };
  dismissed: boolean;
  message?: SafeHtml | undefined;
  /** The website address as just sent, and what was wrong with it. */
  origin?: { value: string; error: FieldError | undefined };
}

/** Whether each step is done, from what is there. */
export function stepsDone(view: Pick<StartView, 'form' | 'testLead' | 'mail'>) {
  const form = view.form !== null;
  const lead = view.testLead !== null;
  const mail = view.mail.on && view.mail.latest?.status === 'sent';
  return { form, snippet: lead, lead, mail, all: form && lead && mail };
}

function step(
  tr: Translator,
  n: number,
  key: string,
  done: boolean,
  title: string,
  body: SafeHtml,
): SafeHtml {
  return html`<li class="card start-step${done ? ' start-step-done' : ''}" id="step-${key}" data-step="${key}" data-done="${done ? 'yes' : 'no'}">
  <h2><span class="start-mark" aria-hidden="true">${done ? '✓' : String(n)}</span> ${title} <span class="${done ? 'badge badge-success' : 'visually-hidden'}">${done ? tr.t('start.done') : tr.t('start.todo')}</span></h2>
  ${body}
</li>`;
}

function formStep(tr: Translator, view: StartView, done: boolean): SafeHtml {
  const body = view.form
    ? html`<p>${richText(tr, 'start.form.ready', { name: html`<strong>${view.form.name}</strong>` })}</p>
  <p><a href="/dashboard/settings/forms/${view.form.id}">${tr.t('start.form.change')}</a></p>`
    : html`<p>${tr.t('start.form.intro')}</p>
  <form method="post" action="${START_PATH}/form" class="actions">
    ${csrfField(view.user.csrfToken)}
    <button type="submit" class="button button-primary">${tr.t('start.form.create')}</button>
    <a class="button button-quiet" href="/dashboard/settings/forms/new">${tr.t('start.form.custom')}</a>
  </form>`;
  return step(tr, 1, 'form', done, tr.t('start.form.title'), body);
}

/** The website the snippet goes on: its address must be allowed, or the form refuses its posts. */
function originForm(tr: Translator, view: StartView, form: NonNullable<StartView['form']>): SafeHtml {
  const error = view.origin?.error;
  const label = tr.t('start.origin.label');
  const allowed = form.allowedOrigins.length
    ? html`<p>${tr.t('start.origin.allowed')} ${form.allowedOrigins.map((o, i) => html`${i ? ', ' : ''}<code>${o}</code>`)}</p>`
    : html`<p>${tr.t('start.origin.none')}</p>`;
  return html`${allowed}
  <form method="post" action="${START_PATH}/origin#step-snippet" novalidate>
    ${csrfField(view.user.csrfToken)}
    <div class="field${error ? ' field-invalid' : ''}">
      <label for="field-origin">${label}</label>
      ${error ? html`<p class="error" id="field-origin-error">${errorText(tr, error, label)}</p>` : ''}
      <input id="field-origin" name="origin" type="url" inputmode="url" placeholder="https://www.example.nl" value="${view.origin?.value ?? ''}"${error ? html` aria-invalid="true" aria-describedby="field-origin-error"` : ''}>
    </div>
    <button type="submit" class="button">${tr.t('start.origin.add')}</button>
  </form>`;
}

function snippetStep(tr: Translator, view: StartView, done: boolean): SafeHtml {
  const { form } = view;
  const body = form
    ? html`<p>${tr.t('start.snippet.intro')}</p>
  <label class="visually-hidden" for="start-snippet">${tr.t('start.snippet.title')}</label>
  <textarea id="start-snippet" class="code-copy" rows="8" readonly spellcheck="false" wrap="off">${form.snippet}</textarea>
  <div class="actions">
    <button type="button" class="button" data-copy="start-snippet" hidden>${tr.t('forms.copy')}</button>
    <span class="copy-status" role="status" aria-live="polite" data-copy-status="start-snippet"></span>
  </div>
  ${originForm(tr, view, form)}
  <p>${tr.t('start.snippet.hosted')}</p>
  <p class="copy-row"><a id="start-hosted-link" class="url-text" href="${form.endpoint}">${form.endpoint}</a>
    <button type="button" class="button" data-copy="start-hosted-link" hidden>${tr.t('forms.copyLink')}</button>
    <span class="copy-status" role="status" aria-live="polite" data-copy-status="start-hosted-link"></span>
  </p>`
    : html`<p class="muted">${tr.t('start.snippet.needsForm')}</p>`;
  return step(tr, 2, 'snippet', done, tr.t('start.snippet.title'), body);
}

function leadStep(tr: Translator, view: StartView, done: boolean): SafeHtml {
  const { form, testLead } = view;
  let body: SafeHtml;
  if (testLead) {
    body = html`<p>${richText(tr, 'start.lead.arrived', { title: html`<a href="/dashboard/leads/${testLead.id}">${testLead.title}</a>` })}</p>
  <p>${tr.t('start.lead.eraseHint')} <a class="button button-danger-quiet" href="/dashboard/customers/${testLead.customerId}/erase">${tr.t('start.lead.erase')}</a></p>`;
  } else if (form) {
    body = html`<p>${tr.t('start.lead.intro')}</p>
  <p class="actions"><a class="button button-primary" href="${form.endpoint}" target="_blank" rel="noopener" data-test-lead>${tr.t('start.lead.open')}</a>
    <a class="button button-quiet" href="${START_PATH}">${tr.t('start.lead.check')}</a></p>`;
  } else body = html`<p class="muted">${tr.t('start.snippet.needsForm')}</p>`;
  return step(tr, 3, 'lead', done, tr.t('start.lead.title'), body);
}

function mailStep(tr: Translator, view: StartView, done: boolean): SafeHtml {
  const { mail } = view;
  let body: SafeHtml;
  if (!mail.on) {
    body = html`<p>${richText(tr, 'start.mail.off', { code: (inner) => html`<code>${inner}</code>` })}</p>`;
  } else if (!mail.latest) {
    body = html`<p>${richText(tr, 'start.mail.waiting', { from: html`<span class="mono">${mail.from}</span>` })}</p>`;
  } else {
    const { latest } = mail;
    const to = html`<strong>${latest.recipient}</strong>`;
    const at = html`<time datetime="${latest.at}" data-local>${tr.dateTime(new Date(latest.at), view.user.timeZone)}</time>`;
    body =
      latest.status === 'sent'
        ? html`<p>${richText(tr, 'start.mail.sent', { to, at, from: html`<span class="mono">${mail.from}</span>` })}</p>`
        : latest.status === 'pending'
          ? html`<p>${richText(tr, 'start.mail.pending', { to })} <a href="${START_PATH}#step-mail">${tr.t('start.lead.check')}</a></p>`
          : html`<p class="error">${richText(tr, 'start.mail.failed', { to, error: latest.lastError ?? '' })}</p>
  <p><a href="/dashboard/settings/users">${tr.t('start.mail.failedLink')}</a></p>`;
  }
  return step(tr, 4, 'mail', done, tr.t('start.mail.title'), body);
}

function restSection(tr: Translator): SafeHtml {
  const links: [string, string][] = [
    ['/dashboard/settings/users', tr.t('start.rest.users')],
    ['/dashboard/settings/brand', tr.t('start.rest.brand')],
    ['/dashboard/settings/api-keys', tr.t('start.rest.apiKeys')],
    ['/dashboard/settings/webhooks', tr.t('start.rest.webhooks')],
  ];
  return html`<section class="card" aria-labelledby="rest-title" id="step-rest">
  <h2 id="rest-title">${tr.t('start.rest.title')}</h2>
  <ul>${links.map(([href, label]) => html`<li><a href="${href}">${label}</a></li>`)}</ul>
</section>`;
}

export function startPage(view: StartView): SafeHtml {
  const tr = translator(view.user.locale);
  const done = stepsDone(view);
  const count = [done.form, done.snippet, done.lead, done.mail].filter(Boolean).length;
  return page({
    title: tr.t('start.title'),
    user: view.user,
    section: 'leads',
    body: html`<div class="page-head">
  <h1>${tr.t('start.title')}</h1>
  <p class="muted">${tr.t('start.intro', { brand: view.user.brandName })}</p>
  <p data-start-progress>${tr.t('start.progress', { done: count, total: 4 })}</p>
</div>
${view.message ?? ''}
${done.all ? notice(tr.t('start.allDone')) : ''}
<ol class="start-steps">
${formStep(tr, view, done.form)}
${snippetStep(tr, view, done.snippet)}
${leadStep(tr, view, done.lead)}
${mailStep(tr, view, done.mail)}
</ol>
${restSection(tr)}
${
  view.dismissed
    ? ''
    : html`<form method="post" action="${START_PATH}/dismiss" class="actions">
  ${csrfField(view.user.csrfToken)}
  <button type="submit" class="button button-quiet">${tr.t('start.dismiss')}</button>
</form>`
}`,
  });
}
