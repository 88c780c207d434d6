// Settings > Forms: the brand's website forms (list, new, settings, enable/disable, delete with confirmation), and
// on each form's page what to put on the website: the snippet, the fetch example and the hosted page's link.

import type { SessionUser } from '../../accounts/sessions.js';
import { formLabel, type LeadFieldName } from '../../leads/fields.js';
import { PRIORITIES } from '../../leads/states.js';
import { csrfField, errorFor, errorSummary, errorText, field, time } from '../../platform/web/components.js';
import { type HtmlValue, html, type SafeHtml } from '../../platform/web/html.js';
import { page } from '../../platform/web/layout.js';
import { richText } from '../../platform/web/messages.js';
import type { FieldError, FieldErrorText } from '../../shared/errors.js';
import {
  LOCALES,
  type Locale,
  type MessageKey,
  type Translator,
  translator,
} from '../../shared/i18n/index.js';
import { ALWAYS_REQUIRED, type FormField, QUESTION_TYPES, SHOWABLE_FIELDS } from '../form-fields.js';
import { CAPTCHA_PROVIDERS, type Form } from '../forms.js';
import { NO_ORIGIN, OTHER_ORIGINS, type RefusedOrigin } from '../refusals.js';

const BASE = '/dashboard/settings/forms';

/** The form's fields as typed, to show again (never the captcha secret). */
export interface FormValues {
  name: string;
  /** nl or en: what the form speaks to people. */
  language: string;
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
  /** Every field the editor lists, in its order, with whether it is shown and required. */
  fields: { name: LeadFieldName; shown: boolean; required: boolean }[];
  /** The question rows as typed (existing questions, then empty rows to fill in). */
  questions: QuestionRow[];
}

/** A question as its editor row holds it: options one a line. */
export interface QuestionRow {
  key: string;
  label: string;
  type: string;
  options: string;
  required: boolean;
}

/** Empty question rows the editor offers below the form's questions (without JavaScript: fill one in and save). */
export const EMPTY_QUESTION_ROWS = 3;
export const MAX_QUESTION_ROWS = 20;

/**
 * The editor's rows: the form's fields in its order, with each field it does not show put where the field table's
 * order places it (before the first shown field that comes after it), so ticking one puts it in a natural place.
 */
export function editorFields(fields: readonly FormField[]): FormValues['fields'] {
  const out: FormValues['fields'] = fields.map((f) => ({ name: f.name, shown: true, required: f.required }));
  const order = SHOWABLE_FIELDS;
  for (const name of order) {
    if (out.some((f) => f.name === name)) continue;
    const at = out.findIndex((f) => order.indexOf(f.name) > order.indexOf(name));
    out.splice(at === -1 ? out.length : at, 0, { name, shown: false, required: false });
  }
  return out;
}

/** The form's questions as editor rows, and empty rows after them (at most 20 in all). */
export function questionRows(form: Pick<Form, 'questions'> | undefined): QuestionRow[] {
  const rows: QuestionRow[] = (form?.questions ?? []).map((q) => ({
    key: q.key,
    label: q.label,
    type: q.type,
    options: (q.options ?? []).join('\n'),
    required: q.required,
  }));
  const empty = Math.min(EMPTY_QUESTION_ROWS, MAX_QUESTION_ROWS - rows.length);
  for (let i = 0; i < empty; i++)
    rows.push({ key: '', label: '', type: 'text', options: '', required: false });
  return rows;
}

/** A problem at a field of the page; `more`: the field's further problems (several origins), each a sentence. */
export interface PageError extends FieldError {
  more?: FieldErrorText[];
}

type PageField = keyof FormValues | 'captchaSecret';

const LABEL_KEYS: Record<PageField, MessageKey> = {
  name: 'forms.label.name',
  language: 'forms.label.language',
  allowedOrigins: 'forms.label.allowedOrigins',
  redirectUrl: 'forms.label.redirectUrl',
  honeypotField: 'forms.label.honeypotField',
  captchaProvider: 'forms.label.captchaProvider',
  captchaSiteKey: 'forms.label.captchaSiteKey',
  captchaSecret: 'forms.label.captchaSecret',
  consentText: 'forms.label.consentText',
  autoReply: 'forms.label.autoReply',
  defaultPriority: 'forms.label.defaultPriority',
  defaultCategory: 'forms.label.defaultCategory',
  fields: 'forms.label.fields',
  questions: 'forms.label.questions',
};

/** The page's labels in the reader's language, by field (errors on other fields go by their name). */
function formLabels(tr: Translator): Record<string, string> {
  return Object.fromEntries(Object.entries(LABEL_KEYS).map(([name, key]) => [name, tr.t(key)]));
}

const PROVIDER_LABELS: Record<string, string> = {
  turnstile: 'Cloudflare Turnstile',
  hcaptcha: 'hCaptcha',
  recaptcha: 'Google reCAPTCHA',
};

const PRIORITY_KEYS: Record<string, MessageKey> = {
  low: 'forms.priority.low',
  medium: 'forms.priority.medium',
  high: 'forms.priority.high',
  urgent: 'forms.priority.urgent',
};

/** Each language by its own name, as a language choice shows it. */
const LANGUAGE_KEYS: Record<Locale, MessageKey> = { nl: 'forms.language.nl', en: 'forms.language.en' };

export function formValuesOf(form: Form): FormValues {
  return {
    name: form.name,
    language: form.language,
    allowedOrigins: form.allowedOrigins.join('\n'),
    redirectUrl: form.redirectUrl ?? '',
    honeypotField: form.honeypotField,
    captchaProvider: form.captcha?.provider ?? '',
    captchaSiteKey: form.captcha?.siteKey ?? '',
    consentText: form.consentText ?? '',
    autoReply: form.autoReply,
    defaultPriority: form.defaults.priority ?? '',
    defaultCategory: form.defaults.category ?? '',
    fields: editorFields(form.fields),
    questions: questionRows(form),
  };
}

function stateBadge(tr: Translator, form: Form): SafeHtml {
  return form.enabled
    ? html`<span class="badge badge-completed">${tr.t('forms.state.enabled')}</span>`
    : html`<span class="badge badge-cancelled">${tr.t('forms.state.disabled')}</span>`;
}

function described(id: string, hint: boolean, error: boolean): SafeHtml | '' {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return ids ? html` aria-describedby="${ids}"` : '';
}

interface ControlOptions {
  tr: Translator;
  name: PageField;
  hint?: HtmlValue;
  error?: PageError | undefined;
  required?: boolean;
}

/** The sentences of a field's problems (several origins each get one). */
function errorSentences(tr: Translator, error: PageError, label: string): string {
  return [
    errorText(tr, error, label),
    ...(error.more ?? []).map((text) => errorText(tr, { field: error.field, message: '', text }, label)),
  ].join(' ');
}

function fieldShell(options: ControlOptions, control: SafeHtml): SafeHtml {
  const { tr } = options;
  const id = `field-${options.name}`;
  const label = tr.t(LABEL_KEYS[options.name]);
  return html`<div class="field${options.error ? ' field-invalid' : ''}">
  <label for="${id}">${label}${options.required ? '' : html` <span class="optional">${tr.t('form.optional')}</span>`}</label>
  ${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ''}
  ${options.error ? html`<p class="error" id="${id}-error">${errorSentences(tr, options.error, label)}</p>` : ''}
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
  options: ControlOptions & { value: string; choices: readonly (readonly [string, string, Locale?])[] },
): SafeHtml {
  const id = `field-${options.name}`;
  return fieldShell(
    options,
    html`<select id="${id}" name="${options.name}"${described(id, Boolean(options.hint), Boolean(options.error))}${
      options.error ? html` aria-invalid="true"` : ''
    }>${options.choices.map(
      ([value, label, lang]) =>
        html`<option value="${value}"${lang ? html` lang="${lang}"` : ''}${value === options.value ? html` selected` : ''}>${label}</option>`,
    )}</select>`,
  );
}

interface SettingsFormOptions {
  user: SessionUser;
  action: string;
  submit: string;
  values: FormValues;
  errors: readonly PageError[];
  /** Editing a form whose captcha secret is stored: an empty secret field keeps it. */
  secretStored: boolean;
  /** The form element's id, for a preview that follows it. */
  id?: string;
}

/** Every setting of a form: the same fields as the API, validated by the same code. */
function settingsForm(options: SettingsFormOptions): SafeHtml {
  const { values, errors } = options;
  const tr = translator(options.user.locale);
  const labels = { ...formLabels(tr), ...questionLabels(tr, values.questions.length) };
  const err = (name: string) => errorFor(errors, name) as PageError | undefined;
  return html`${errorSummary(tr, errors, labels)}
<form method="post" action="${options.action}"${options.id ? html` id="${options.id}"` : ''} novalidate>
  ${csrfField(options.user.csrfToken)}
  ${field({
    tr,
    name: 'name',
    label: labels.name!,
    value: values.name,
    hint: tr.t('forms.hint.name'),
    error: err('name'),
    required: true,
    attributes: html`maxlength="200"`,
  })}
  ${select({
    tr,
    name: 'language',
    value: values.language,
    choices: LOCALES.map((l) => [l, tr.t(LANGUAGE_KEYS[l]), l] as const),
    hint: tr.t('forms.hint.language'),
    error: err('language'),
    required: true,
  })}
  ${textarea({
    tr,
    name: 'allowedOrigins',
    value: values.allowedOrigins,
    rows: 3,
    maxLength: 20 * 300,
    hint: richText(tr, 'forms.hint.allowedOrigins', { example: html`<code>https://www.example.nl</code>` }),
    error: err('allowedOrigins'),
  })}
  ${field({
    tr,
    name: 'redirectUrl',
    label: labels.redirectUrl!,
    type: 'url',
    value: values.redirectUrl,
    hint: tr.t('forms.hint.redirectUrl'),
    error: err('redirectUrl'),
    attributes: html`maxlength="2048" spellcheck="false"`,
  })}
  ${field({
    tr,
    name: 'honeypotField',
    label: labels.honeypotField!,
    value: values.honeypotField,
    hint: richText(tr, 'forms.hint.honeypotField', { default: html`<code>_gotcha</code>` }),
    error: err('honeypotField'),
    attributes: html`maxlength="64" spellcheck="false" autocomplete="off"`,
  })}
  <fieldset>
    <legend>${tr.t('forms.captcha.legend')} <span class="optional">${tr.t('form.optional')}</span></legend>
    ${select({
      tr,
      name: 'captchaProvider',
      value: values.captchaProvider,
      choices: [
        ['', tr.t('forms.provider.none')],
        ...CAPTCHA_PROVIDERS.map((p) => [p, PROVIDER_LABELS[p] ?? p] as const),
      ],
      error: err('captchaProvider'),
    })}
    ${field({
      tr,
      name: 'captchaSiteKey',
      label: labels.captchaSiteKey!,
      value: values.captchaSiteKey,
      hint: tr.t('forms.hint.captchaSiteKey'),
      error: err('captchaSiteKey'),
      attributes: html`maxlength="500" spellcheck="false" autocomplete="off"`,
    })}
    ${field({
      tr,
      name: 'captchaSecret',
      label: labels.captchaSecret!,
      type: 'password',
      value: '',
      hint: options.secretStored
        ? tr.t('forms.hint.captchaSecretStored')
        : tr.t('forms.hint.captchaSecretNew'),
      error: err('captchaSecret'),
      attributes: html`maxlength="500" spellcheck="false" autocomplete="new-password"`,
    })}
  </fieldset>
  ${textarea({
    tr,
    name: 'consentText',
    value: values.consentText,
    rows: 2,
    maxLength: 2000,
    hint: tr.t('forms.hint.consentText'),
    error: err('consentText'),
  })}
  <div class="check">
    <input type="checkbox" id="field-autoReply" name="autoReply" value="yes" aria-describedby="field-autoReply-hint"${
      values.autoReply ? html` checked` : ''
    }>
    <label for="field-autoReply">${tr.t('forms.autoReply.label')}</label>
    <p class="hint" id="field-autoReply-hint">${tr.t('forms.hint.autoReply')}</p>
  </div>
  ${select({
    tr,
    name: 'defaultPriority',
    value: values.defaultPriority,
    choices: [
      ['', tr.t('forms.priority.none')],
      ...PRIORITIES.map((p) => [p, PRIORITY_KEYS[p] ? tr.t(PRIORITY_KEYS[p]) : p] as const),
    ],
    hint: tr.t('forms.hint.defaultPriority'),
    error: err('defaultPriority'),
  })}
  ${field({
    tr,
    name: 'defaultCategory',
    label: labels.defaultCategory!,
    value: values.defaultCategory,
    hint: tr.t('forms.hint.defaultCategory'),
    error: err('defaultCategory'),
    attributes: html`maxlength="100"`,
  })}
  ${fieldsEditor(tr, values, err('fields'))}
  ${questionsEditor(tr, values, err)}
  <button type="submit" class="button button-primary">${options.submit}</button>
</form>`;
}

/** The lead fields: shown or not, required or not, one row each in the form's order. */
function fieldsEditor(tr: Translator, values: FormValues, error: PageError | undefined): SafeHtml {
  const shown = tr.t('forms.fields.shown');
  const required = tr.t('forms.fields.required');
  return html`<fieldset id="field-fields" class="field${error ? ' field-invalid' : ''}" aria-describedby="field-fields-hint">
  <legend>${tr.t('forms.label.fields')}</legend>
  <p class="hint" id="field-fields-hint">${tr.t('forms.hint.fields')}</p>
  ${error ? html`<p class="error" id="field-fields-error">${errorSentences(tr, error, tr.t('forms.label.fields'))}</p>` : ''}
  <table class="list form-fields-editor">
  <thead><tr><th scope="col">${tr.t('forms.fields.field')}</th><th scope="col">${shown}</th><th scope="col">${required}</th></tr></thead>
  <tbody>${values.fields.map((f) => {
    const always = ALWAYS_REQUIRED.includes(f.name);
    const label = formLabel(tr, f.name);
    return html`<tr>
    <td data-label="${tr.t('forms.fields.field')}" class="cell-title"><input type="hidden" name="fieldOrder" value="${f.name}">${label} <code class="sub">${f.name}</code>${
      always ? html` <span class="sub">${tr.t('forms.fields.always')}</span>` : ''
    }</td>
    <td data-label="${shown}"><input type="checkbox" name="fieldShown" value="${f.name}" aria-label="${tr.t('forms.fields.showLabel', { field: label })}"${
      f.shown || always ? html` checked` : ''
    }${always ? html` disabled` : ''}></td>
    <td data-label="${required}"><input type="checkbox" name="fieldRequired" value="${f.name}" aria-label="${tr.t('forms.fields.requiredLabel', { field: label })}"${
      f.required || always ? html` checked` : ''
    }${always ? html` disabled` : ''}></td>
  </tr>`;
  })}</tbody>
  </table>
</fieldset>`;
}

const QUESTION_PARTS = ['key', 'label', 'type', 'options', 'required'] as const;
const PART_KEYS: Record<(typeof QUESTION_PARTS)[number], MessageKey> = {
  key: 'forms.question.key',
  label: 'forms.question.label',
  type: 'forms.question.type',
  options: 'forms.question.options',
  required: 'forms.question.required',
};
const TYPE_KEYS: Record<string, MessageKey> = {
  text: 'forms.questionType.text',
  textarea: 'forms.questionType.textarea',
  select: 'forms.questionType.select',
  checkbox: 'forms.questionType.checkbox',
};

/** The labels of the question rows' fields ("Question 2: Options"), for the error summary. */
function questionLabels(tr: Translator, rows: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < rows; i++) {
    out[`q${i}`] = tr.t('forms.question.legend', { n: i + 1 });
    for (const part of QUESTION_PARTS) {
      out[`q${i}-${part}`] = tr.t('forms.question.partLabel', { n: i + 1, part: tr.t(PART_KEYS[part]) });
    }
  }
  return out;
}

/** The form's own questions: one fieldset a row, filled-in rows first, then empty ones to fill in. */
function questionsEditor(
  tr: Translator,
  values: FormValues,
  err: (name: string) => PageError | undefined,
): SafeHtml {
  const labels = questionLabels(tr, values.questions.length);
  const input = (i: number, part: 'key' | 'label', value: string, attributes: SafeHtml) => {
    const name = `q${i}-${part}`;
    const error = err(name);
    return html`<div class="field${error ? ' field-invalid' : ''}">
      <label for="field-${name}">${tr.t(PART_KEYS[part])}</label>
      ${part === 'key' ? html`<p class="hint" id="field-${name}-hint">${tr.t('forms.hint.questionKey')}</p>` : ''}
      ${error ? html`<p class="error" id="field-${name}-error">${errorSentences(tr, error, labels[name] ?? name)}</p>` : ''}
      <input id="field-${name}" name="${name}" type="text" value="${value}" ${attributes}${
        part === 'key' ? html` aria-describedby="field-${name}-hint"` : ''
      }${error ? html` aria-invalid="true"` : ''}>
    </div>`;
  };
  return html`<fieldset id="field-questions">
  <legend>${tr.t('forms.label.questions')} <span class="optional">${tr.t('form.optional')}</span></legend>
  <p class="hint">${tr.t('forms.hint.questions')}</p>
  ${values.questions.map((q, i) => {
    const typeError = err(`q${i}-type`);
    const optionsError = err(`q${i}-options`);
    const rowError = err(`q${i}`);
    return html`<fieldset class="question-row" id="field-q${i}">
    <legend>${tr.t('forms.question.legend', { n: i + 1 })}</legend>
    ${rowError ? html`<p class="error">${errorSentences(tr, rowError, labels[`q${i}`] ?? '')}</p>` : ''}
    ${input(i, 'label', q.label, html`maxlength="200"`)}
    ${input(i, 'key', q.key, html`maxlength="64" spellcheck="false" autocomplete="off"`)}
    <div class="field${typeError ? ' field-invalid' : ''}">
      <label for="field-q${i}-type">${tr.t('forms.question.type')}</label>
      ${typeError ? html`<p class="error">${errorSentences(tr, typeError, labels[`q${i}-type`] ?? '')}</p>` : ''}
      <select id="field-q${i}-type" name="q${i}-type">${QUESTION_TYPES.map(
        (t) =>
          html`<option value="${t}"${t === q.type ? html` selected` : ''}>${tr.t(TYPE_KEYS[t]!)}</option>`,
      )}</select>
    </div>
    <div class="field${optionsError ? ' field-invalid' : ''}">
      <label for="field-q${i}-options">${tr.t('forms.question.options')}</label>
      <p class="hint" id="field-q${i}-options-hint">${tr.t('forms.hint.questionOptions')}</p>
      ${optionsError ? html`<p class="error" id="field-q${i}-options-error">${errorSentences(tr, optionsError, labels[`q${i}-options`] ?? '')}</p>` : ''}
      <textarea id="field-q${i}-options" name="q${i}-options" rows="3" maxlength="11000" aria-describedby="field-q${i}-options-hint"${
        optionsError ? html` aria-invalid="true"` : ''
      }>${q.options}</textarea>
    </div>
    <div class="check">
      <input type="checkbox" id="field-q${i}-required" name="q${i}-required" value="yes"${q.required ? html` checked` : ''}>
      <label for="field-q${i}-required">${tr.t('forms.question.required')}</label>
    </div>
  </fieldset>`;
  })}
</fieldset>`;
}

/** The refused posts of the last 30 days: how many, and the origins they came from, the latest first. */
function refusalsSection(tr: Translator, refusals: FormPageView['refusals']): SafeHtml {
  const origin = tr.t('forms.refused.origin');
  const count = tr.t('forms.refused.count');
  const last = tr.t('forms.refused.last');
  return html`<section class="card" aria-labelledby="refused-title" id="refused">
  <h2 id="refused-title">${tr.t('forms.refused.title')}</h2>
  ${
    refusals.total === 0
      ? html`<p class="muted">${tr.t('forms.refused.none')}</p>`
      : html`<p>${tr.t('forms.refused.summary', { count: refusals.total })}</p>
  <table class="list">
  <thead><tr><th scope="col">${origin}</th><th scope="col">${count}</th><th scope="col">${last}</th></tr></thead>
  <tbody>${refusals.origins.map(
    (r) => html`<tr>
    <td data-label="${origin}" class="url-text">${
      r.origin === NO_ORIGIN
        ? tr.t('forms.refused.noOrigin')
        : r.origin === OTHER_ORIGINS
          ? tr.t('forms.refused.otherOrigins')
          : r.origin
    }</td>
    <td data-label="${count}">${tr.number(r.count)}</td>
    <td data-label="${last}">${time(r.lastAt)}</td>
  </tr>`,
  )}</tbody>
  </table>`
  }
</section>`;
}

/**
 * The hosted form as customers see it: the same markup, in the form's language, that cannot be sent from here. As
 * served it is the saved form; with JavaScript the page's script (app.js) follows the settings form as it is
 * changed, asking `previewUrl` for the unsaved form's markup, and says so in the text above it.
 */
function previewSection(tr: Translator, preview: SafeHtml, previewUrl: string): SafeHtml {
  return html`<section class="card form-preview" aria-labelledby="preview-title" id="preview">
  <h2 id="preview-title">${tr.t('forms.preview.title')}</h2>
  <p class="muted" data-live-text="${tr.t('forms.preview.live')}">${tr.t('forms.preview.text')}</p>
  <div class="form-preview-frame" id="form-preview" data-preview-of="settings-form" data-preview-url="${previewUrl}" aria-live="polite">
  ${preview}
  </div>
</section>`;
}

function emptyState(tr: Translator): SafeHtml {
  return html`<div class="empty">
  <h2>${tr.t('forms.empty.title')}</h2>
  <p>${tr.t('forms.empty.text')}</p>
  <p><a class="button button-primary" href="${BASE}/new">${tr.t('forms.new')}</a></p>
</div>`;
}

function formTable(tr: Translator, forms: Form[]): SafeHtml {
  const name = tr.t('forms.column.name');
  const state = tr.t('forms.column.state');
  const origins = tr.t('forms.column.allowedOrigins');
  const created = tr.t('forms.column.created');
  return html`<table class="list">
  <thead><tr>
    <th scope="col">${name}</th><th scope="col">${state}</th><th scope="col">${origins}</th><th scope="col">${created}</th>
  </tr></thead>
  <tbody>${forms.map(
    (f) => html`<tr${f.enabled ? '' : html` class="row-muted"`}>
    <td data-label="${name}" class="cell-title"><a href="${BASE}/${f.id}">${f.name}</a><span class="sub mono">${f.id}</span></td>
    <td data-label="${state}">${stateBadge(tr, f)}</td>
    <td data-label="${origins}">${
      f.allowedOrigins.length
        ? f.allowedOrigins.map((o) => html`<span class="sub url-text">${o}</span>`)
        : html`<span class="muted">${tr.t('forms.hostedOnly')}</span>`
    }</td>
    <td data-label="${created}">${time(f.createdAt)}</td>
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
  const tr = translator(view.user.locale);
  return page({
    title: tr.t('forms.title'),
    user: view.user,
    section: 'forms',
    body: html`<div class="page-head">
  <h1>${tr.t('forms.title')}</h1>
  <p class="muted">${tr.t('forms.intro', { brand: view.user.brandName })}</p>
</div>
${view.message ?? ''}
${
  view.forms.length
    ? html`<p><a class="button button-primary" href="${BASE}/new">${tr.t('forms.new')}</a></p>
${formTable(tr, view.forms)}
${view.olderHref ? html`<p><a href="${view.olderHref}">${tr.t('forms.older')}</a></p>` : ''}`
    : emptyState(tr)
}`,
  });
}

export interface NewFormView {
  user: SessionUser;
  values: FormValues;
  errors: readonly PageError[];
}

export function newFormPage(view: NewFormView): SafeHtml {
  const tr = translator(view.user.locale);
  const title = tr.t('forms.new');
  return page({
    title: view.errors.length ? tr.t('forms.errorTitle', { title }) : title,
    user: view.user,
    section: 'forms',
    body: html`<p class="breadcrumb"><a href="${BASE}">${tr.t('forms.back')}</a></p>
<section class="card narrow" aria-labelledby="new-title">
  <h1 id="new-title">${title}</h1>
  <p class="muted">${tr.t('forms.newForm.intro')}</p>
  ${settingsForm({ user: view.user, action: BASE, submit: tr.t('forms.create'), values: view.values, errors: view.errors, secretStored: false })}
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
  errors: readonly PageError[];
  secretStored: boolean;
  message?: SafeHtml | undefined;
  /** The hosted page's form as it is saved (views.ts formPreview). */
  preview: SafeHtml;
  refusals: { total: number; origins: RefusedOrigin[] };
}

/** A block of code to copy: readonly text people can select without JavaScript, and a copy button with it. */
function copyBlock(tr: Translator, id: string, titleId: string, text: string, rows: number): SafeHtml {
  return html`<textarea id="${id}" class="code-copy" aria-labelledby="${titleId}" rows="${rows}" readonly spellcheck="false" wrap="off">${text}</textarea>
  <div class="actions">
    <button type="button" class="button" data-copy="${id}" hidden>${tr.t('forms.copy')}</button>
    <span class="copy-status" role="status" aria-live="polite" data-copy-status="${id}"></span>
  </div>`;
}

function embedSection(tr: Translator, view: FormPageView): SafeHtml {
  return html`<section class="card" aria-labelledby="embed-title">
  <h2 id="embed-title">${tr.t('forms.embed.title')}</h2>
  <h3 id="snippet-title">${tr.t('forms.embed.snippetTitle')}</h3>
  <p>${richText(tr, 'forms.embed.snippetText', { endpoint: html`<code class="url-text">${view.endpoint}</code>` })}</p>
  ${copyBlock(tr, 'form-snippet', 'snippet-title', view.snippet, 14)}
  <h3 id="fetch-title">${tr.t('forms.embed.fetchTitle')}</h3>
  <p>${tr.t('forms.embed.fetchText')}</p>
  ${copyBlock(tr, 'form-fetch-example', 'fetch-title', view.fetchExample, 10)}
  <h3 id="hosted-title">${tr.t('forms.embed.hostedTitle')}</h3>
  <p>${tr.t('forms.embed.hostedText', { framed: view.form.allowedOrigins.length ? 'yes' : 'no' })}</p>
  <p class="copy-row"><a id="form-hosted-link" class="url-text" href="${view.endpoint}">${view.endpoint}</a>
    <button type="button" class="button" data-copy="form-hosted-link" hidden>${tr.t('forms.copyLink')}</button>
    <span class="copy-status" role="status" aria-live="polite" data-copy-status="form-hosted-link"></span>
  </p>
</section>`;
}

function switchSection(tr: Translator, view: FormPageView): SafeHtml {
  const { form, user } = view;
  return html`<section class="card" aria-labelledby="switch-title">
  <h2 id="switch-title">${tr.t('forms.switch.title')}</h2>
  <p>${form.enabled ? tr.t('forms.switch.enabledText') : tr.t('forms.switch.disabledText')}</p>
  <div class="actions">
    ${
      form.enabled
        ? html`<form method="post" action="${BASE}/${form.id}/disable">
      ${csrfField(user.csrfToken)}
      <button type="submit" class="button button-quiet">${tr.t('forms.disable')}</button>
    </form>`
        : html`<form method="post" action="${BASE}/${form.id}/enable">
      ${csrfField(user.csrfToken)}
      <button type="submit" class="button button-primary">${tr.t('forms.enable')}</button>
    </form>`
    }
    <a class="button button-danger-quiet" href="${BASE}/${form.id}/delete">${tr.t('forms.deleteLink')}</a>
  </div>
</section>`;
}

export function formPage(view: FormPageView): SafeHtml {
  const { form } = view;
  const tr = translator(view.user.locale);
  return page({
    title: view.errors.length ? tr.t('forms.errorTitle', { title: form.name }) : form.name,
    user: view.user,
    section: 'forms',
    body: html`<p class="breadcrumb"><a href="${BASE}">${tr.t('forms.back')}</a></p>
<div class="page-head">
  <h1>${form.name} ${stateBadge(tr, form)}</h1>
  <p class="muted">${richText(tr, 'forms.meta', { created: time(form.createdAt), id: html`<code>${form.id}</code>` })}</p>
</div>
${view.message ?? ''}
${
  form.enabled
    ? ''
    : html`<div class="notice notice-info" role="status"><p>${tr.t('forms.disabledNotice')}</p></div>`
}
${embedSection(tr, view)}
<section class="card" aria-labelledby="settings-title">
  <h2 id="settings-title">${tr.t('forms.settings.title')}</h2>
  ${settingsForm({
    user: view.user,
    action: `${BASE}/${form.id}`,
    submit: tr.t('forms.save'),
    values: view.values,
    errors: view.errors,
    secretStored: view.secretStored,
    id: 'settings-form',
  })}
</section>
${previewSection(tr, view.preview, `${BASE}/${form.id}/preview`)}
${refusalsSection(tr, view.refusals)}
${switchSection(tr, view)}`,
  });
}

export function deleteFormPage(user: SessionUser, form: Form): SafeHtml {
  const tr = translator(user.locale);
  return page({
    title: tr.t('forms.delete.title', { name: form.name }),
    user,
    section: 'forms',
    body: html`<p class="breadcrumb"><a href="${BASE}/${form.id}">← ${form.name}</a></p>
<section class="card narrow" aria-labelledby="delete-title">
  <h1 id="delete-title">${tr.t('forms.delete.heading', { name: form.name })}</h1>
  <p>${tr.t('forms.delete.text')}</p>
  <form method="post" action="${BASE}/${form.id}/delete" class="actions">
    ${csrfField(user.csrfToken)}
    <button type="submit" class="button button-danger">${tr.t('forms.delete.confirm')}</button>
    <a class="button button-quiet" href="${BASE}/${form.id}">${tr.t('forms.delete.keep')}</a>
  </form>
</section>`,
  });
}
