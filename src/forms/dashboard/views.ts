// Settings > Forms: the brand's website forms (list, new, settings, enable/disable, delete with confirmation), and
// on each form's page what to put on the website: the snippet, the fetch example and the hosted page's link.

import type { SessionUser } from '../../accounts/sessions.js';
import { PRIORITY_LABELS } from '../../leads/dashboard/views/labels.js';
import { PRIORITIES } from '../../leads/states.js';
import { csrfField, errorFor, errorSummary, field, time } from '../../platform/web/components.js';
import { type HtmlValue, html, type SafeHtml } from '../../platform/web/html.js';
import { page } from '../../platform/web/layout.js';
import type { FieldError } from '../../shared/errors.js';
import { CAPTCHA_PROVIDERS, type Form } from '../forms.js';

const BASE = '/dashboard/settings/forms';

/** The form's fields as typed, to show again (never the captcha secret). */
export interface FormValues {
  name: string;
  /** One origin a line. */
  allowedOrigins: string;
  redirectUrl: string;
  honeypotField: string;
  captchaProvider: string;
  captchaSiteKey: string;
  consentText: string;
  autoReply: boolean;
  defaultPriority: string;
  defaultCategory: string;
}

export const FORM_LABELS: Record<keyof FormValues | 'captchaSecret', string> = {
  name: 'Name',
  allowedOrigins: 'Allowed origins',
  redirectUrl: 'Redirect URL',
  honeypotField: 'Honeypot field name',
  captchaProvider: 'Captcha provider',
  captchaSiteKey: 'Site key',
  captchaSecret: 'Secret',
  consentText: 'Consent text',
  autoReply: 'Auto-reply',
  defaultPriority: 'Default priority',
  defaultCategory: 'Default category',
};

const PROVIDER_LABELS: Record<string, string> = {
  turnstile: 'Cloudflare Turnstile',
  hcaptcha: 'hCaptcha',
  recaptcha: 'Google reCAPTCHA',
};

export function formValuesOf(form: Form): FormValues {
  return {
    name: form.name,
    allowedOrigins: form.allowedOrigins.join('\n'),
    redirectUrl: form.redirectUrl ?? '',
    honeypotField: form.honeypotField,
    captchaProvider: form.captcha?.provider ?? '',
    captchaSiteKey: form.captcha?.siteKey ?? '',
    consentText: form.consentText ?? '',
    autoReply: form.autoReply,
    defaultPriority: form.defaults.priority ?? '',
    defaultCategory: form.defaults.category ?? '',
  };
}

function stateBadge(form: Form): SafeHtml {
  return form.enabled
    ? html`<span class="badge badge-completed">Enabled</span>`
    : html`<span class="badge badge-cancelled">Disabled</span>`;
}

function described(id: string, hint: boolean, error: boolean): SafeHtml | '' {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return ids ? html` aria-describedby="${ids}"` : '';
}

interface ControlOptions {
  name: keyof FormValues | 'captchaSecret';
  hint?: HtmlValue;
  error?: string | undefined;
  required?: boolean;
}

function fieldShell(options: ControlOptions, control: SafeHtml): SafeHtml {
  const id = `field-${options.name}`;
  const label = FORM_LABELS[options.name];
  return html`<div class="field${options.error ? ' field-invalid' : ''}">
  <label for="${id}">${label}${options.required ? '' : html` <span class="optional">(optional)</span>`}</label>
  ${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ''}
  ${options.error ? html`<p class="error" id="${id}-error">${label} ${options.error}.</p>` : ''}
  ${control}
</div>`;
}

function textarea(options: ControlOptions & { value: string; rows: number; maxLength: number }): SafeHtml {
  const id = `field-${options.name}`;
  return fieldShell(
    options,
    html`<textarea id="${id}" name="${options.name}" rows="${options.rows}" maxlength="${options.maxLength}"${described(
      id,
      Boolean(options.hint),
      Boolean(options.error),
    )}${options.error ? html` aria-invalid="true"` : ''}>${options.value}</textarea>`,
  );
}

function select(
  options: ControlOptions & { value: string; choices: readonly (readonly [string, string])[] },
): SafeHtml {
  const id = `field-${options.name}`;
  return fieldShell(
    options,
    html`<select id="${id}" name="${options.name}"${described(id, Boolean(options.hint), Boolean(options.error))}${
      options.error ? html` aria-invalid="true"` : ''
    }>${options.choices.map(
      ([value, label]) =>
        html`<option value="${value}"${value === options.value ? html` selected` : ''}>${label}</option>`,
    )}</select>`,
  );
}

interface SettingsFormOptions {
  user: SessionUser;
  action: string;
  submit: string;
  values: FormValues;
  errors: readonly FieldError[];
  /** Editing a form whose captcha secret is stored: an empty secret field keeps it. */
  secretStored: boolean;
}

/** Every setting of a form: the same fields as the API, validated by the same code. */
function settingsForm(options: SettingsFormOptions): SafeHtml {
  const { values, errors } = options;
  const err = (name: string) => errorFor(errors, name);
  return html`${errorSummary(errors, FORM_LABELS)}
<form method="post" action="${options.action}" novalidate>
  ${csrfField(options.user.csrfToken)}
  ${field({
    name: 'name',
    label: FORM_LABELS.name,
    value: values.name,
    hint: 'For you: it is shown in the dashboard and kept with each lead as the form it came from.',
    error: err('name'),
    required: true,
    attributes: html`maxlength="200"`,
  })}
  ${textarea({
    name: 'allowedOrigins',
    value: values.allowedOrigins,
    rows: 3,
    maxLength: 20 * 300,
    hint: html`The websites that may post this form, one a line, e.g. <code>https://www.example.nl</code> (https; http only for localhost). Leave empty to use only the hosted page.`,
    error: err('allowedOrigins'),
  })}
  ${field({
    name: 'redirectUrl',
    label: FORM_LABELS.redirectUrl,
    type: 'url',
    value: values.redirectUrl,
    hint: 'Where people go after sending the form, e.g. your own thank-you page. Empty: a thank-you page of this service.',
    error: err('redirectUrl'),
    attributes: html`maxlength="2048" spellcheck="false"`,
  })}
  ${field({
    name: 'honeypotField',
    label: FORM_LABELS.honeypotField,
    value: values.honeypotField,
    hint: html`A hidden field people never fill in; a post that fills it is kept as spam. Empty: <code>_gotcha</code>.`,
    error: err('honeypotField'),
    attributes: html`maxlength="64" spellcheck="false" autocomplete="off"`,
  })}
  <fieldset>
    <legend>Captcha <span class="optional">(optional)</span></legend>
    ${select({
      name: 'captchaProvider',
      value: values.captchaProvider,
      choices: [['', 'None'], ...CAPTCHA_PROVIDERS.map((p) => [p, PROVIDER_LABELS[p] ?? p] as const)],
      error: err('captchaProvider'),
    })}
    ${field({
      name: 'captchaSiteKey',
      label: FORM_LABELS.captchaSiteKey,
      value: values.captchaSiteKey,
      hint: 'The public key from your provider; it goes into the page.',
      error: err('captchaSiteKey'),
      attributes: html`maxlength="500" spellcheck="false" autocomplete="off"`,
    })}
    ${field({
      name: 'captchaSecret',
      label: FORM_LABELS.captchaSecret,
      type: 'password',
      value: '',
      hint: options.secretStored
        ? 'A secret is stored and is never shown. Leave this empty to keep it; type a new one to replace it.'
        : 'The secret key from your provider. It is stored here and never shown again.',
      error: err('captchaSecret'),
      attributes: html`maxlength="500" spellcheck="false" autocomplete="new-password"`,
    })}
  </fieldset>
  ${textarea({
    name: 'consentText',
    value: values.consentText,
    rows: 2,
    maxLength: 2000,
    hint: 'When set, the form shows a box with this text that people must tick; the lead keeps the text and when it was ticked.',
    error: err('consentText'),
  })}
  <div class="check">
    <input type="checkbox" id="field-autoReply" name="autoReply" value="yes" aria-describedby="field-autoReply-hint"${
      values.autoReply ? html` checked` : ''
    }>
    <label for="field-autoReply">Send the customer an auto-reply</label>
    <p class="hint" id="field-autoReply-hint">When email is on and the customer gave an email address, they get a receipt of what they sent.</p>
  </div>
  ${select({
    name: 'defaultPriority',
    value: values.defaultPriority,
    choices: [['', 'None (medium)'], ...PRIORITIES.map((p) => [p, PRIORITY_LABELS[p] ?? p] as const)],
    hint: 'The priority of leads from this form (the form itself has no priority field).',
    error: err('defaultPriority'),
  })}
  ${field({
    name: 'defaultCategory',
    label: FORM_LABELS.defaultCategory,
    value: values.defaultCategory,
    hint: 'The category of leads from this form when the post sends none, e.g. “Plumbing”.',
    error: err('defaultCategory'),
    attributes: html`maxlength="100"`,
  })}
  <button type="submit" class="button button-primary">${options.submit}</button>
</form>`;
}

function emptyState(): SafeHtml {
  return html`<div class="empty">
  <h2>No forms yet</h2>
  <p>A form takes job requests from your website straight into your leads, with no API key or other secret in the page. You get an HTML form to paste into your site (it works without JavaScript), and a hosted page you can link to if you have no site.</p>
  <p><a class="button button-primary" href="${BASE}/new">New form</a></p>
</div>`;
}

function formTable(forms: Form[]): SafeHtml {
  return html`<table class="list">
  <thead><tr>
    <th scope="col">Name</th><th scope="col">State</th><th scope="col">Allowed origins</th><th scope="col">Created</th>
  </tr></thead>
  <tbody>${forms.map(
    (f) => html`<tr${f.enabled ? '' : html` class="row-muted"`}>
    <td data-label="Name" class="cell-title"><a href="${BASE}/${f.id}">${f.name}</a><span class="sub mono">${f.id}</span></td>
    <td data-label="State">${stateBadge(f)}</td>
    <td data-label="Allowed origins">${
      f.allowedOrigins.length
        ? f.allowedOrigins.map((o) => html`<span class="sub url-text">${o}</span>`)
        : html`<span class="muted">Hosted page only</span>`
    }</td>
    <td data-label="Created">${time(f.createdAt)}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

export interface FormsView {
  user: SessionUser;
  forms: Form[];
  olderHref?: string | undefined;
  message?: SafeHtml | undefined;
}

export function formsPage(view: FormsView): SafeHtml {
  return page({
    title: 'Forms',
    user: view.user,
    section: 'forms',
    body: html`<div class="page-head">
  <h1>Forms</h1>
  <p class="muted">Forms on your website that send job requests to ${view.user.brandName} as leads.</p>
</div>
${view.message ?? ''}
${
  view.forms.length
    ? html`<p><a class="button button-primary" href="${BASE}/new">New form</a></p>
${formTable(view.forms)}
${view.olderHref ? html`<p><a href="${view.olderHref}">Older forms →</a></p>` : ''}`
    : emptyState()
}`,
  });
}

export interface NewFormView {
  user: SessionUser;
  values: FormValues;
  errors: readonly FieldError[];
}

export function newFormPage(view: NewFormView): SafeHtml {
  return page({
    title: view.errors.length ? 'Error: New form' : 'New form',
    user: view.user,
    section: 'forms',
    body: html`<p class="breadcrumb"><a href="${BASE}">← Forms</a></p>
<section class="card narrow" aria-labelledby="new-title">
  <h1 id="new-title">New form</h1>
  <p class="muted">After you create it, its page shows the HTML to paste into your website.</p>
  ${settingsForm({ user: view.user, action: BASE, submit: 'Create form', values: view.values, errors: view.errors, secretStored: false })}
</section>`,
  });
}

export interface FormPageView {
  user: SessionUser;
  form: Form;
  /** `<PUBLIC_URL>/f/frm_…`: where the form posts, and the hosted page. */
  endpoint: string;
  snippet: string;
  fetchExample: string;
  values: FormValues;
  errors: readonly FieldError[];
  secretStored: boolean;
  message?: SafeHtml | undefined;
}

/** A block of code to copy: readonly text people can select without JavaScript, and a copy button with it. */
function copyBlock(id: string, titleId: string, text: string, rows: number): SafeHtml {
  return html`<textarea id="${id}" class="code-copy" aria-labelledby="${titleId}" rows="${rows}" readonly spellcheck="false" wrap="off">${text}</textarea>
  <div class="actions">
    <button type="button" class="button" data-copy="${id}" hidden>Copy</button>
    <span class="copy-status" role="status" aria-live="polite" data-copy-status="${id}"></span>
  </div>`;
}

function embedSection(view: FormPageView): SafeHtml {
  return html`<section class="card" aria-labelledby="embed-title">
  <h2 id="embed-title">Put it on your website</h2>
  <h3 id="snippet-title">The form to paste</h3>
  <p>Paste this where the form should appear. It is plain HTML that works with JavaScript off: every field has the name this service expects, the spam trap is hidden, and a post goes to <code class="url-text">${view.endpoint}</code>. Style it with your site’s CSS.</p>
  ${copyBlock('form-snippet', 'snippet-title', view.snippet, 14)}
  <h3 id="fetch-title">Optional: send it without leaving the page</h3>
  <p>Add this after the form to send it without leaving the page: the script posts the same fields as JSON and shows a thank-you in place of the form, or the problems.</p>
  ${copyBlock('form-fetch-example', 'fetch-title', view.fetchExample, 10)}
  <h3 id="hosted-title">Or link to the hosted page</h3>
  <p>No website, or a site builder that takes no HTML? Link to this page with the same form and your company name${
    view.form.allowedOrigins.length ? ', or frame it on your allowed origins' : ''
  }.</p>
  <p class="copy-row"><a id="form-hosted-link" class="url-text" href="${view.endpoint}">${view.endpoint}</a>
    <button type="button" class="button" data-copy="form-hosted-link" hidden>Copy link</button>
    <span class="copy-status" role="status" aria-live="polite" data-copy-status="form-hosted-link"></span>
  </p>
</section>`;
}

function switchSection(view: FormPageView): SafeHtml {
  const { form, user } = view;
  return html`<section class="card" aria-labelledby="switch-title">
  <h2 id="switch-title">Switch off or delete</h2>
  <p>${
    form.enabled
      ? 'Disabling stops the form at once: its endpoint and hosted page answer “not found” until you enable it again. Nothing else changes.'
      : 'This form is disabled: its endpoint and hosted page answer “not found”.'
  }</p>
  <div class="actions">
    ${
      form.enabled
        ? html`<form method="post" action="${BASE}/${form.id}/disable">
      ${csrfField(user.csrfToken)}
      <button type="submit" class="button button-quiet">Disable form</button>
    </form>`
        : html`<form method="post" action="${BASE}/${form.id}/enable">
      ${csrfField(user.csrfToken)}
      <button type="submit" class="button button-primary">Enable form</button>
    </form>`
    }
    <a class="button button-danger-quiet" href="${BASE}/${form.id}/delete">Delete form…</a>
  </div>
</section>`;
}

export function formPage(view: FormPageView): SafeHtml {
  const { form } = view;
  return page({
    title: view.errors.length ? `Error: ${form.name}` : form.name,
    user: view.user,
    section: 'forms',
    body: html`<p class="breadcrumb"><a href="${BASE}">← Forms</a></p>
<div class="page-head">
  <h1>${form.name} ${stateBadge(form)}</h1>
  <p class="muted">Created ${time(form.createdAt)}. Public id <code>${form.id}</code>: it opens nothing else.</p>
</div>
${view.message ?? ''}
${
  form.enabled
    ? ''
    : html`<div class="notice notice-info" role="status"><p>This form is disabled: posts to it and its hosted page answer “not found”. Enable it below to take requests again.</p></div>`
}
${embedSection(view)}
<section class="card" aria-labelledby="settings-title">
  <h2 id="settings-title">Settings</h2>
  ${settingsForm({
    user: view.user,
    action: `${BASE}/${form.id}`,
    submit: 'Save changes',
    values: view.values,
    errors: view.errors,
    secretStored: view.secretStored,
  })}
</section>
${switchSection(view)}`,
  });
}

export function deleteFormPage(user: SessionUser, form: Form): SafeHtml {
  return page({
    title: `Delete ${form.name}`,
    user,
    section: 'forms',
    body: html`<p class="breadcrumb"><a href="${BASE}/${form.id}">← ${form.name}</a></p>
<section class="card narrow" aria-labelledby="delete-title">
  <h1 id="delete-title">Delete form ${form.name}?</h1>
  <p>Its endpoint will stop taking posts; leads already received are kept. This cannot be undone: a new form gets a new id, so the snippet on your website would have to be replaced.</p>
  <form method="post" action="${BASE}/${form.id}/delete" class="actions">
    ${csrfField(user.csrfToken)}
    <button type="submit" class="button button-danger">Delete form</button>
    <a class="button button-quiet" href="${BASE}/${form.id}">Keep it</a>
  </form>
</section>`,
  });
}
