// The HTML of website forms: the snippet a brand pastes into its site, the hosted form page, the thank-you page
// and the error pages people see after a post. Built only with html``, so form, brand and typed values are escaped.

import type { FieldFormat } from '../customers/fields.js';
import {
  formFieldNames,
  type LeadFieldName,
  type LeadFieldSpec,
  leadField,
  leadFieldsWhere,
} from '../leads/fields.js';
import { assetUrls } from '../platform/web/assets.js';
import { errorSummary, errorText } from '../platform/web/components.js';
import { type HtmlValue, html, type SafeHtml } from '../platform/web/html.js';
import { languageSwitch } from '../platform/web/messages.js';
import type { FieldError, FieldErrorText } from '../shared/errors.js';
import { type Locale, type MessageKey, type Translator, translator } from '../shared/i18n/index.js';
import { CAPTCHA_PROVIDER_INFO } from './captcha.js';
import type { Form } from './forms.js';

/** The catalog key of each lead field's label on the form (the field table's form label, else its label). */
const LEAD_LABEL_KEYS: Record<string, MessageKey> = Object.fromEntries(
  leadFieldsWhere({}).map((name) => {
    const f = leadField(name);
    return [name, f.formLabel ?? f.label];
  }),
);

/** The form's own fields besides the lead fields. */
const OWN_LABEL_KEYS: Record<string, MessageKey> = {
  consent: 'publicForm.field.consent',
  captcha: 'publicForm.field.captcha',
};

/** People's label of a field a form post names, in the reader's language; an unknown (extra) field by its name. */
export function formFieldLabel(tr: Translator, name: string): string {
  const key = LEAD_LABEL_KEYS[name] ?? OWN_LABEL_KEYS[name];
  return key ? tr.t(key) : name;
}

/** A form post's field error as one sentence for people, in the reader's language. */
export function formErrorText(tr: Translator, error: FieldError): string {
  return errorText(tr, error, formFieldLabel(tr, error.field));
}

const INPUT_TYPES: Partial<Record<FieldFormat, string>> = { email: 'email', phone: 'tel' };

/**
 * The lead fields a form shows, in the order people answer them (the field table's formOrder): the job, who they
 * are, where. All of them but priority (the brand's choice, a form default).
 */
const FORM_FIELDS = formFieldNames().map((name) => ({ name, ...leadField(name) }));

interface RenderOptions {
  /** The form's language (or the one a `?lang=` asked for). */
  tr: Translator;
  values?: Record<string, string>;
  errors?: readonly FieldError[];
  /** Hosted page: dashboard stylesheet classes; snippet: plain markup with one inline style for the honeypot. */
  hosted: boolean;
}

function errorOf(options: RenderOptions, name: string): string | undefined {
  const error = options.errors?.find((e) => e.field === name);
  return error ? formErrorText(options.tr, error) : undefined;
}

function formField(name: LeadFieldName, f: LeadFieldSpec, options: RenderOptions): SafeHtml {
  const { required, maxLength } = f;
  const { tr } = options;
  const id = `field-${name}`;
  const label = formFieldLabel(tr, name);
  const value = options.values?.[name] ?? '';
  const error = errorOf(options, name);
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
  <label for="${id}">${label}${required ? html` <span aria-hidden="true">*</span>` : html` <span class="optional">${tr.t('form.optional')}</span>`}</label>${
    error ? html`\n  <p class="error" id="${id}-error">${error}</p>` : ''
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
  const error = errorOf(options, 'captcha');
  return html`<div id="field-captcha"${options.hosted ? html` class="field${error ? ' field-invalid' : ''}"` : ''}>
  ${error ? html`<p class="error" id="field-captcha-error">${error}</p>` : ''}
  <div class="${provider.widgetClass}" data-sitekey="${form.captcha.siteKey}"></div>
  <noscript><p>${options.tr.t('publicForm.captcha.noscript')}</p></noscript>
  <script src="${provider.scriptUrl}" async defer></script>
</div>`;
}

/**
 * The form element itself: every lead field by its API name, the hidden honeypot, the consent box when set, the
 * captcha widget when the form has one.
 */
export function formMarkup(form: Form, action: string, options: RenderOptions): SafeHtml {
  const { tr } = options;
  const consentError = errorOf(options, 'consent');
  const honeypotId = `field-${form.honeypotField}`;
  const honeypotLabel = tr.t('publicForm.honeypot');
  const honeypot = options.hosted
    ? html`<div class="visually-hidden" aria-hidden="true"><label for="${honeypotId}">${honeypotLabel}</label><input id="${honeypotId}" type="text" name="${form.honeypotField}" value="" tabindex="-1" autocomplete="off"></div>`
    : html`<div style="position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden" aria-hidden="true"><label for="${honeypotId}">${honeypotLabel}</label><input id="${honeypotId}" type="text" name="${form.honeypotField}" value="" tabindex="-1" autocomplete="off"></div>`;
  return html`<form method="post" action="${action}" accept-charset="utf-8">
<p>${tr.t('publicForm.requiredNote')}</p>
${FORM_FIELDS.map((f) => formField(f.name, f, options))}
${honeypot}
${
  form.consentText
    ? html`<div${options.hosted ? html` class="field${consentError ? ' field-invalid' : ''}"` : ''}>
  ${consentError ? html`<p class="error" id="field-consent-error">${consentError}</p>` : ''}
  <input id="field-consent" type="checkbox" name="consent" value="yes" required${
    options.values?.consent ? html` checked` : ''
  }${consentError ? html` aria-invalid="true" aria-describedby="field-consent-error"` : ''}>
  <label for="field-consent">${form.consentText} <span aria-hidden="true">*</span></label>
</div>`
    : ''
}
${captchaWidget(form, options)}
<button type="submit"${options.hosted ? html` class="button button-primary"` : ''}>${tr.t('publicForm.send')}</button>
</form>`;
}

/**
 * The snippet returned with a form: a complete HTML form to paste, in the form's language, working with JavaScript
 * off (except for a captcha widget, which needs the provider's script).
 */
export function formSnippet(form: Form, endpoint: string): string {
  return formMarkup(form, endpoint, { tr: translator(form.language), hosted: false }).toString();
}

function shell(tr: Translator, title: string, heading: string, body: HtmlValue): SafeHtml {
  return html`<!doctype html>
<html lang="${tr.locale}">
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

/** `?lang=` on the hosted page's own links, when the page is shown in another language than the form's. */
export function langQuery(form: Form, locale: Locale): string {
  return locale === form.language ? '' : `?lang=${locale}`;
}

/**
 * The hosted form page in `locale` (the form's language, or the one `?lang=` asked for), or the same page after a
 * failed post (problems listed, values kept).
 */
export function hostedFormPage(
  form: Form & { brandName: string },
  locale: Locale,
  options: { values?: Record<string, string>; errors?: readonly FieldError[] } = {},
): string {
  const tr = translator(locale);
  const errors = options.errors ?? [];
  const labels = Object.fromEntries(errors.map((e) => [e.field, formFieldLabel(tr, e.field)]));
  const path = `/f/${form.id}`;
  return shell(
    tr,
    errors.length ? tr.t('publicForm.errorTitle', { brand: form.brandName }) : form.brandName,
    form.brandName,
    html`${errorSummary(tr, errors, labels)}${formMarkup(form, `${path}${langQuery(form, locale)}`, {
      tr,
      hosted: true,
      values: options.values ?? {},
      errors,
    })}
${languageSwitch(tr, path)}`,
  ).toString();
}

export function thanksPage(brandName: string, locale: Locale): string {
  const tr = translator(locale);
  return shell(
    tr,
    tr.t('publicForm.thanks.title', { brand: brandName }),
    brandName,
    html`<p role="status">${tr.t('publicForm.thanks.message')}</p>`,
  ).toString();
}

/** The title of each page for people whose post could not be taken (403, 404, 413, 415, 429; else 400 or 500). */
const ERROR_TITLES: Record<number, MessageKey> = {
  403: 'publicForm.error.forbidden.title',
  404: 'publicForm.error.notFound.title',
  413: 'publicForm.error.tooLarge.title',
  415: 'publicForm.error.unsupported.title',
  429: 'publicForm.error.rateLimited.title',
};

/** A page for people whose post could not be taken, in `locale`: its title by status, and what happened. */
export function errorPage(status: number, message: FieldErrorText, locale: Locale): string {
  const tr = translator(locale);
  const title = tr.t(ERROR_TITLES[status] ?? 'publicForm.error.other.title');
  return shell(tr, title, title, html`<p>${tr.t(message.key, message.values)}</p>`).toString();
}

/** A JavaScript string literal in single quotes (a message inside the example's script). */
function jsString(text: string): string {
  return `'${text.replace(/[\\']/g, '\\$&').replace(/</g, '\\x3c')}'`;
}

/**
 * The `fetch` example shown beside the snippet: the same form sent as JSON by a script, so the page stays put and
 * shows the answer itself. It works on the snippet's markup (it reads the form by its action) and on any form with
 * the same field names.
 */
export function formFetchExample(endpoint: string, language: Locale): string {
  const tr = translator(language);
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
    alert(${jsString(tr.t('publicForm.fetch.failed'))});
    return;
  }
  if (response.ok) {
    form.replaceWith(Object.assign(document.createElement('p'), { textContent: ${jsString(tr.t('publicForm.fetch.thanks'))} }));
  } else {
    // answer.errors lists each problem: { field, message }, the message a sentence in the form's language
    alert((answer.errors || [{ message: answer.detail }]).map((e) => e.message).join('\\n'));
  }
});
</script>`;
}
