// The HTML of website forms: the snippet a brand pastes into its site, the hosted form page, the thank-you page
// and the error pages people see after a post. Built only with html``, so form, brand and typed values are escaped.

import type { FieldFormat } from '../customers/fields.js';
import { type LeadFieldSpec, leadField, leadFieldsWhere } from '../leads/fields.js';
import { assetUrls } from '../platform/web/assets.js';
import { errorSummary, errorText } from '../platform/web/components.js';
import { type HtmlValue, html, type SafeHtml } from '../platform/web/html.js';
import { languageSwitch } from '../platform/web/messages.js';
import { countryChoices } from '../shared/countries.js';
import type { FieldError, FieldErrorText } from '../shared/errors.js';
import { type Locale, type MessageKey, type Translator, translator } from '../shared/i18n/index.js';
import { CAPTCHA_PROVIDER_INFO } from './captcha.js';
import type { FormField, FormQuestion } from './form-fields.js';
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
  attachments: 'publicForm.field.attachments',
};

/**
 * People's label of a field a form post names, in the reader's language; a question of the form by its label (as
 * the business wrote it); an unknown (extra) field by its name.
 */
export function formFieldLabel(tr: Translator, name: string, form?: Pick<Form, 'questions'>): string {
  // Own keys only: a field a post names "constructor" or "toString" must not find Object.prototype's.
  const own = (table: Record<string, MessageKey>) => (Object.hasOwn(table, name) ? table[name] : undefined);
  const key = own(LEAD_LABEL_KEYS) ?? own(OWN_LABEL_KEYS);
  if (key) return tr.t(key);
  return form?.questions.find((q) => q.key === name)?.label ?? name;
}

/** A form post's field error as one sentence for people, in the reader's language. */
export function formErrorText(tr: Translator, error: FieldError, form?: Pick<Form, 'questions'>): string {
  return errorText(tr, error, formFieldLabel(tr, error.field, form));
}

const INPUT_TYPES: Partial<Record<FieldFormat, string>> = { email: 'email', phone: 'tel' };

/** The attachment limits the file field's hint names (ATTACHMENT_MAX_BYTES, 10 files a post). */
export interface FileLimits {
  maxFilesPerPost: number;
  maxFileBytes: number;
}

export interface RenderOptions {
  /** The form's language (or the one a `?lang=` asked for). */
  tr: Translator;
  files: FileLimits;
  values?: Record<string, string>;
  errors?: readonly FieldError[];
  /** Hosted page: dashboard stylesheet classes; snippet: plain markup with one inline style for the honeypot. */
  hosted: boolean;
  /** The brand's country: the country select's choice until people pick another. */
  defaultCountry?: string | undefined;
  /**
   * The dashboard's preview of the hosted page: ids start with "preview-" (the editor beside it has its own), the
   * form cannot be sent from there and the captcha widget (a provider's script) is a note.
   */
  preview?: boolean;
}

function errorOf(options: RenderOptions, name: string, form?: Pick<Form, 'questions'>): string | undefined {
  const error = options.errors?.find((e) => e.field === name);
  return error ? formErrorText(options.tr, error, form) : undefined;
}

const idOf = (options: RenderOptions, name: string) => `${options.preview ? 'preview-' : ''}field-${name}`;

/** "*" after a required field's label; "(optional)" after the others. */
function requiredMark(tr: Translator, required: boolean): SafeHtml {
  return required
    ? html` <span aria-hidden="true">*</span>`
    : html` <span class="optional">${tr.t('form.optional')}</span>`;
}

/** The country select: every country by its name in the page's language, the posted one (or the brand's) chosen. */
function countrySelect(
  id: string,
  options: RenderOptions,
  required: boolean,
  error: string | undefined,
): SafeHtml {
  const typed = (options.values?.country ?? '').trim().toUpperCase();
  const chosen = typed || (options.defaultCountry ?? '').toUpperCase();
  return html`<select id="${id}" name="country" autocomplete="country"${required ? html` required` : ''}${
    error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''
  }>${required && !chosen ? html`<option value=""></option>` : ''}${countryChoices(options.tr.locale).map(
    ([code, name]) => html`<option value="${code}"${code === chosen ? html` selected` : ''}>${name}</option>`,
  )}</select>`;
}

function formField(field: FormField, options: RenderOptions): SafeHtml {
  const { name, required } = field;
  const f: LeadFieldSpec = leadField(name);
  const { maxLength } = f;
  const { tr } = options;
  const id = idOf(options, name);
  const label = formFieldLabel(tr, name);
  const value = options.values?.[name] ?? '';
  const error = errorOf(options, name);
  const type = (f.format && INPUT_TYPES[f.format]) ?? 'text';
  const control =
    f.format === 'country'
      ? countrySelect(id, options, required, error)
      : f.rows
        ? html`<textarea id="${id}" name="${name}" maxlength="${maxLength}"${required ? html` required` : ''}${
            error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''
          }>${value}</textarea>`
        : html`<input id="${id}" name="${name}" type="${type}" maxlength="${maxLength}" value="${value}"${
            required ? html` required` : ''
          }${f.autocomplete ? html` autocomplete="${f.autocomplete}"` : ''}${
            error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''
          }>`;
  return html`<div${options.hosted ? html` class="field${error ? ' field-invalid' : ''}"` : ''}>
  <label for="${id}">${label}${requiredMark(tr, required)}</label>${
    error ? html`\n  <p class="error" id="${id}-error">${error}</p>` : ''
  }
  ${control}
</div>`;
}

/** One of the form's own questions: a text line, a text box, a select of its options or a checkbox. */
function questionField(form: Form, q: FormQuestion, options: RenderOptions): SafeHtml {
  const { tr } = options;
  const id = idOf(options, q.key);
  const value = options.values?.[q.key] ?? '';
  const error = errorOf(options, q.key, form);
  const invalid = error ? html` aria-invalid="true" aria-describedby="${id}-error"` : '';
  const req = q.required ? html` required` : '';
  const errorLine = error ? html`\n  <p class="error" id="${id}-error">${error}</p>` : '';
  const wrap = (body: SafeHtml) =>
    html`<div${options.hosted ? html` class="field${q.type === 'checkbox' ? ' check' : ''}${error ? ' field-invalid' : ''}"` : ''}>
  ${body}
</div>`;
  if (q.type === 'checkbox') {
    return wrap(html`${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}
  <input id="${id}" type="checkbox" name="${q.key}" value="yes"${value ? html` checked` : ''}${req}${invalid}>
  <label for="${id}">${q.label}${requiredMark(tr, q.required)}</label>`);
  }
  const label = html`<label for="${id}">${q.label}${requiredMark(tr, q.required)}</label>${errorLine}`;
  if (q.type === 'select') {
    return wrap(html`${label}
  <select id="${id}" name="${q.key}"${req}${invalid}><option value=""${value ? '' : html` selected`}>${tr.t('publicForm.choose')}</option>${(
    q.options ?? []
  ).map((o) => html`<option${o === value ? html` selected` : ''}>${o}</option>`)}</select>`);
  }
  const control =
    q.type === 'textarea'
      ? html`<textarea id="${id}" name="${q.key}" maxlength="1000"${req}${invalid}>${value}</textarea>`
      : html`<input id="${id}" name="${q.key}" type="text" maxlength="1000" value="${value}"${req}${invalid}>`;
  return wrap(html`${label}
  ${control}`);
}

/**
 * Where the questions go: after the job's fields, i.e. before the first field of another group (who they are,
 * where) that follows a job field; at the end when there is none.
 */
function fieldsAndQuestions(form: Form, options: RenderOptions): SafeHtml[] {
  const fields = form.fields.map((f) => ({ f, job: leadField(f.name).group === 'job' }));
  const firstJob = fields.findIndex((x) => x.job);
  let at = firstJob === -1 ? -1 : fields.findIndex((x, i) => i > firstJob && !x.job);
  if (at === -1) at = fields.length;
  const questions = form.questions.map((q) => questionField(form, q, options));
  const rendered = fields.map(({ f }) => formField(f, options));
  return [...rendered.slice(0, at), ...questions, ...rendered.slice(at)];
}

/**
 * The captcha provider's widget with the form's site key, and the provider's script as its documentation includes
 * it (on a brand's own page, the snippet carries the same line). The widget puts its token in the provider's field.
 */
function captchaWidget(form: Form, options: RenderOptions): SafeHtml | '' {
  if (!form.captcha) return '';
  if (options.preview) return html`<p class="muted">${options.tr.t('forms.preview.captcha')}</p>`;
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
 * The photos field: any number of images or PDFs (a phone offers its camera for `image/*`; no `capture`, so the
 * gallery stays possible), its hint naming the limits. A browser cannot keep chosen files after a failed post.
 */
function filesField(options: RenderOptions): SafeHtml {
  const { tr } = options;
  const id = idOf(options, 'attachments');
  const error = errorOf(options, 'attachments');
  const mib = Math.floor(options.files.maxFileBytes / (1024 * 1024));
  const hint = tr.t('publicForm.attachments.hint', { max: options.files.maxFilesPerPost, mib });
  const described = error ? `${id}-error ${id}-hint` : `${id}-hint`;
  return html`<div${options.hosted ? html` class="field${error ? ' field-invalid' : ''}"` : ''}>
  <label for="${id}">${tr.t('publicForm.field.attachments')} <span class="optional">${tr.t('form.optional')}</span></label>
  ${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}
  <input id="${id}" type="file" name="attachments" multiple accept="image/*,application/pdf" aria-describedby="${described}"${error ? html` aria-invalid="true"` : ''}>
  <p id="${id}-hint"${options.hosted ? html` class="hint"` : ''}>${hint}</p>
</div>`;
}

/**
 * The form element itself: the form's lead fields by their API names in its order, its questions after the job's
 * fields, the hidden honeypot, the consent box when set, the captcha widget when the form has one.
 */
export function formMarkup(form: Form, action: string, options: RenderOptions): SafeHtml {
  const { tr } = options;
  const consentError = errorOf(options, 'consent');
  const honeypotId = idOf(options, form.honeypotField);
  const honeypotLabel = tr.t('publicForm.honeypot');
  const honeypot = options.hosted
    ? html`<div class="visually-hidden" aria-hidden="true"><label for="${honeypotId}">${honeypotLabel}</label><input id="${honeypotId}" type="text" name="${form.honeypotField}" value="" tabindex="-1" autocomplete="off"></div>`
    : html`<div style="position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden" aria-hidden="true"><label for="${honeypotId}">${honeypotLabel}</label><input id="${honeypotId}" type="text" name="${form.honeypotField}" value="" tabindex="-1" autocomplete="off"></div>`;
  const consentId = idOf(options, 'consent');
  return html`<form method="post" action="${action}" enctype="multipart/form-data" accept-charset="utf-8"${options.preview ? html` inert` : ''}>
<p>${tr.t('publicForm.requiredNote')}</p>
${fieldsAndQuestions(form, options)}
${filesField(options)}
${honeypot}
${
  form.consentText
    ? html`<div${options.hosted ? html` class="field${consentError ? ' field-invalid' : ''}"` : ''}>
  ${consentError ? html`<p class="error" id="${consentId}-error">${consentError}</p>` : ''}
  <input id="${consentId}" type="checkbox" name="consent" value="yes" required${
    options.values?.consent ? html` checked` : ''
  }${consentError ? html` aria-invalid="true" aria-describedby="${consentId}-error"` : ''}>
  <label for="${consentId}">${form.consentText} <span aria-hidden="true">*</span></label>
</div>`
    : ''
}
${captchaWidget(form, options)}
<button type="submit"${options.hosted ? html` class="button button-primary"` : ''}${options.preview ? html` disabled` : ''}>${tr.t('publicForm.send')}</button>
</form>`;
}

/**
 * The snippet returned with a form: a complete HTML form to paste, in the form's language, working with JavaScript
 * off (except for a captcha widget, which needs the provider's script).
 */
export function formSnippet(
  form: Form,
  endpoint: string,
  files: FileLimits,
  defaultCountry?: string,
): string {
  return formMarkup(form, endpoint, {
    tr: translator(form.language),
    files,
    hosted: false,
    defaultCountry,
  }).toString();
}

/** The hosted page's form as customers see it (in the form's language), for the dashboard's preview. */
export function formPreview(form: Form, files: FileLimits, defaultCountry: string): SafeHtml {
  return formMarkup(form, `/f/${form.id}`, {
    tr: translator(form.language),
    files,
    hosted: true,
    preview: true,
    defaultCountry,
  });
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
  form: Form & { brandName: string; defaultCountry: string },
  locale: Locale,
  files: FileLimits,
  options: { values?: Record<string, string>; errors?: readonly FieldError[] } = {},
): string {
  const tr = translator(locale);
  const errors = options.errors ?? [];
  const labels = Object.fromEntries(errors.map((e) => [e.field, formFieldLabel(tr, e.field, form)]));
  const path = `/f/${form.id}`;
  return shell(
    tr,
    errors.length ? tr.t('publicForm.errorTitle', { brand: form.brandName }) : form.brandName,
    form.brandName,
    html`${errorSummary(tr, errors, labels)}${formMarkup(form, `${path}${langQuery(form, locale)}`, {
      tr,
      files,
      hosted: true,
      values: options.values ?? {},
      errors,
      defaultCountry: form.defaultCountry,
    })}
${languageSwitch(tr, path)}`,
  ).toString();
}

/**
 * The thank-you page; `back`: the page the form was sent from, when it is on one of the form's allowed origins
 * (backLink checked it), linked to.
 */
export function thanksPage(brandName: string, locale: Locale, back?: string): string {
  const tr = translator(locale);
  return shell(
    tr,
    tr.t('publicForm.thanks.title', { brand: brandName }),
    brandName,
    html`<p role="status">${tr.t('publicForm.thanks.message')}</p>${
      back ? html`\n<p><a id="thanks-back" href="${back}">${tr.t('publicForm.thanks.back')}</a></p>` : ''
    }`,
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
 * The `fetch` example shown beside the snippet: the same form, photos included, sent by a script that asks for JSON
 * answers (multipart with `Accept: application/json`), so the page stays put and shows the answer itself. It works on the snippet's markup (it reads the form by its action) and on any form with
 * the same field names.
 */
export function formFetchExample(endpoint: string, language: Locale): string {
  const tr = translator(language);
  return `<script>
document.querySelector('form[action="${endpoint}"]').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  let response, answer;
  try {
    // The fields and the photos chosen, as the form itself would post them; Accept asks for JSON answers.
    response = await fetch(form.action, {
      method: 'POST',
      headers: { Accept: 'application/json' },
      body: new FormData(form),
    });
    answer = await response.json();
  } catch {
    // A network failure, or a browser refusing the answer: it is one when this website is not an allowed origin.
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
