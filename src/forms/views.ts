// The HTML of website forms: the snippet a brand pastes into its site, the hosted form page, the thank-you page
// and the error pages people see after a post. Built only with html``, so form, brand and typed values are escaped.

import type { FieldFormat } from '../customers/fields.js';
import {
  formFieldNames,
  formLabel,
  type LeadFieldName,
  type LeadFieldSpec,
  leadField,
  leadFieldsWhere,
} from '../leads/fields.js';
import { assetUrls } from '../platform/web/assets.js';
import { type HtmlValue, html, type SafeHtml } from '../platform/web/html.js';
import type { FieldError } from '../shared/errors.js';
import { CAPTCHA_PROVIDER_INFO } from './captcha.js';
import type { Form } from './forms.js';

/** People's labels for the lead fields, by API name (the field table's form labels), and the form's own. */
export const FIELD_LABELS: Record<string, string> = {
  ...Object.fromEntries(leadFieldsWhere({}).map((name) => [name, formLabel(name)])),
  consent: 'Consent',
  captcha: 'Robot check',
};

const INPUT_TYPES: Partial<Record<FieldFormat, string>> = { email: 'email', phone: 'tel' };

/**
 * The lead fields a form shows, in the order people answer them (the field table's formOrder): the job, who they
 * are, where. All of them but priority (the brand's choice, a form default).
 */
const FORM_FIELDS = formFieldNames().map((name) => ({ name, ...leadField(name) }));

interface RenderOptions {
  values?: Record<string, string>;
  errors?: readonly FieldError[];
  /** Hosted page: dashboard stylesheet classes; snippet: plain markup with one inline style for the honeypot. */
  hosted: boolean;
}

function formField(name: LeadFieldName, f: LeadFieldSpec, options: RenderOptions): SafeHtml {
  const { required, maxLength } = f;
  const id = `field-${name}`;
  const label = formLabel(name);
  const value = options.values?.[name] ?? '';
  const error = options.errors?.find((e) => e.field === name)?.message;
  const type = (f.format && INPUT_TYPES[f.format]) ?? 'text';
  const control = f.rows
    ? html`<textarea id="${id}" name="${name}" maxlength="${maxLength}"${required ? html` required` : ''}${
        error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''
      }>${value}</textarea>`
    : html`<input id="${id}" name="${name}" type="${type}" maxlength="${maxLength}" value="${value}"${
        required ? html` required` : ''
      }${f.autocomplete ? html` autocomplete="${f.autocomplete}"` : ''}${
        error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''
      }>`;
  return html`<div${options.hosted ? html` class="field${error ? ' field-invalid' : ''}"` : ''}>
  <label for="${id}">${label}${required ? html` <span aria-hidden="true">*</span>` : html` <span class="optional">(optional)</span>`}</label>${
    error ? html`\n  <p class="error" id="${id}-error">${label} ${error}.</p>` : ''
  }
  ${control}
</div>`;
}

/**
 * The captcha provider's widget with the form's site key, and the provider's script as its documentation includes
 * it (on a brand's own page, the snippet carries the same line). The widget puts its token in the provider's field.
 */
function captchaWidget(form: Form, options: RenderOptions): SafeHtml | '' {
  if (!form.captcha) return '';
  const provider = CAPTCHA_PROVIDER_INFO[form.captcha.provider];
  const error = options.errors?.find((e) => e.field === 'captcha')?.message;
  return html`<div id="field-captcha"${options.hosted ? html` class="field${error ? ' field-invalid' : ''}"` : ''}>
  ${error ? html`<p class="error" id="field-captcha-error">${FIELD_LABELS.captcha} ${error}.</p>` : ''}
  <div class="${provider.widgetClass}" data-sitekey="${form.captcha.siteKey}"></div>
  <noscript><p>This form checks that you are not a robot, which needs JavaScript: please turn it on to send the form.</p></noscript>
  <script src="${provider.scriptUrl}" async defer></script>
</div>`;
}

/**
 * The form element itself: every lead field by its API name, the hidden honeypot, the consent box when set, the
 * captcha widget when the form has one.
 */
export function formMarkup(form: Form, action: string, options: RenderOptions): SafeHtml {
  const consentError = options.errors?.find((e) => e.field === 'consent')?.message;
  const honeypotId = `field-${form.honeypotField}`;
  const honeypot = options.hosted
    ? html`<div class="visually-hidden" aria-hidden="true"><label for="${honeypotId}">Leave this field empty</label><input id="${honeypotId}" type="text" name="${form.honeypotField}" value="" tabindex="-1" autocomplete="off"></div>`
    : html`<div style="position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden" aria-hidden="true"><label for="${honeypotId}">Leave this field empty</label><input id="${honeypotId}" type="text" name="${form.honeypotField}" value="" tabindex="-1" autocomplete="off"></div>`;
  return html`<form method="post" action="${action}" accept-charset="utf-8">
<p>Fields marked with an asterisk (*) are required.</p>
${FORM_FIELDS.map((f) => formField(f.name, f, options))}
${honeypot}
${
  form.consentText
    ? html`<div${options.hosted ? html` class="field${consentError ? ' field-invalid' : ''}"` : ''}>
  ${consentError ? html`<p class="error" id="field-consent-error">Consent ${consentError}.</p>` : ''}
  <input id="field-consent" type="checkbox" name="consent" value="yes" required${
    options.values?.consent ? html` checked` : ''
  }${consentError ? html` aria-invalid="true" aria-describedby="field-consent-error"` : ''}>
  <label for="field-consent">${form.consentText} <span aria-hidden="true">*</span></label>
</div>`
    : ''
}
${captchaWidget(form, options)}
<button type="submit"${options.hosted ? html` class="button button-primary"` : ''}>Send</button>
</form>`;
}

/**
 * The snippet returned with a form: a complete HTML form to paste, working with JavaScript off (except for a
 * captcha widget, which needs the provider's script).
 */
export function formSnippet(form: Form, endpoint: string): string {
  return formMarkup(form, endpoint, { hosted: false }).toString();
}

function shell(title: string, heading: string, body: HtmlValue): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${assetUrls.css}">
</head>
<body class="plain">
<main id="main" class="plain-main">
  <div class="card plain-card">
  <h1>${heading}</h1>
${body}
  </div>
</main>
</body>
</html>`;
}

/** The hosted form page, or the same page after a failed post (problems listed, values kept). */
export function hostedFormPage(
  form: Form & { brandName: string },
  options: { values?: Record<string, string>; errors?: readonly FieldError[] } = {},
): string {
  const errors = options.errors ?? [];
  const summary = errors.length
    ? html`<div class="error-summary" role="alert">
  <h2>There ${errors.length === 1 ? 'is a problem' : `are ${errors.length} problems`}</h2>
  <ul>${errors.map(
    (e) => html`<li><a href="#field-${e.field}">${FIELD_LABELS[e.field] ?? e.field} ${e.message}.</a></li>`,
  )}</ul>
</div>`
    : '';
  return shell(
    `${errors.length ? 'Error: ' : ''}${form.brandName}`,
    form.brandName,
    html`${summary}${formMarkup(form, `/f/${form.id}`, { hosted: true, values: options.values ?? {}, errors })}`,
  ).toString();
}

export function thanksPage(brandName: string): string {
  return shell(
    `Thank you · ${brandName}`,
    brandName,
    html`<p role="status">Thank you. We have received your request and will be in touch.</p>`,
  ).toString();
}

/** A page for people whose post could not be taken (403, 404, 413, 415, 429). */
export function errorPage(status: number, message: string): string {
  const titles: Record<number, string> = {
    403: 'This form cannot be sent from here',
    404: 'Form not found',
    413: 'Too much data',
    415: 'Unsupported form encoding',
    429: 'Too many requests',
  };
  const title = titles[status] ?? 'Something went wrong';
  return shell(title, title, html`<p>${message}</p>`).toString();
}

/**
 * The `fetch` example shown beside the snippet: the same form sent as JSON by a script, so the page stays put and
 * shows the answer itself. It works on the snippet's markup (it reads the form by its action) and on any form with
 * the same field names.
 */
export function formFetchExample(endpoint: string): string {
  return `<script>
document.querySelector('form[action="${endpoint}"]').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const body = Object.fromEntries(new FormData(form));
  let response, answer;
  try {
    response = await fetch(form.action, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    });
    answer = await response.json();
  } catch {
    alert('Your request could not be sent. Please check your connection and try again.');
    return;
  }
  if (response.ok) {
    form.replaceWith(Object.assign(document.createElement('p'), { textContent: 'Thank you, we received your request.' }));
  } else {
    // answer.errors lists each problem: { field, message }
    alert((answer.errors || [{ message: answer.detail }]).map((e) => (e.field ? e.field + ' ' : '') + e.message).join('\\n'));
  }
});
</script>`;
}
