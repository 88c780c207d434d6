// Settings > Forms: the same domain functions as /v1/forms, for the signed-in user's brand. Every change is a form
// post answered with a 303 (Post/Redirect/Get); a refused one shows the page again with each problem at its field.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { userOf } from '../../accounts/dashboard/session.js';
import type { SessionUser } from '../../accounts/sessions.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { pathParam, seeOther, sendPage, text, withQuery } from '../../platform/web/http.js';
import { type FieldError, type FieldErrorText, ValidationError } from '../../shared/errors.js';
import { isLocale, type Locale, type MessageKey, translator } from '../../shared/i18n/index.js';
import { isCursor, MAX_LIMIT } from '../../shared/paging.js';
import { DEFAULT_FIELDS } from '../form-fields.js';
import {
  brandCountry,
  createForm,
  DEFAULT_HONEYPOT,
  deleteForm,
  type Form,
  type FormInput,
  formCaptchaSecret,
  formEndpoint,
  getForm,
  listForms,
  parseFormInput,
  previewOf,
  updateForm,
} from '../forms.js';
import { selectBrandLanguage } from '../queries.js';
import { formRefusals } from '../refusals.js';
import { formFetchExample, formPreview, formSnippet } from '../views.js';
import { readFields, readQuestions } from './editor.js';
import {
  deleteFormPage,
  editorFields,
  type FormValues,
  formPage,
  formsPage,
  formValuesOf,
  newFormPage,
  type PageError,
  questionRows,
} from './views.js';

const hidden = { hide: true };
const adminPage = { page: 'admin' as const };
const BASE = '/dashboard/settings/forms';

/** A new form's fields: its language is the brand's until someone picks another. */
const empty = (language: Locale): FormValues => ({
  name: '',
  language,
  allowedOrigins: '',
  redirectUrl: '',
  honeypotField: DEFAULT_HONEYPOT,
  captchaProvider: '',
  captchaSiteKey: '',
  consentText: '',
  autoReply: false,
  defaultPriority: '',
  defaultCategory: '',
  fields: editorFields(DEFAULT_FIELDS),
  questions: questionRows(undefined),
});

async function brandLanguage(deps: RouteDeps, user: SessionUser): Promise<Locale> {
  const language = await selectBrandLanguage(deps.database, user.brandId);
  return isLocale(language) ? language : user.locale;
}

/** What a change's redirect (`?done=`) says. */
const MESSAGES: Record<string, MessageKey> = {
  created: 'forms.done.created',
  saved: 'forms.done.saved',
  enabled: 'forms.done.enabled',
  disabled: 'forms.done.disabled',
  deleted: 'forms.done.deleted',
};

/** The notice for `?done=`, in the user's language. */
function doneMessage(user: SessionUser, done: string): string | undefined {
  const key = Object.hasOwn(MESSAGES, done) ? MESSAGES[done] : undefined;
  return key ? translator(user.locale).t(key) : undefined;
}

/**
 * Where the API reports a problem, as the field of this page's form that holds it; `rows`: the editor row of each
 * question the input lists (empty rows are left out of it).
 */
function pageField(field: string, rows: readonly number[] = []): string | undefined {
  if (field === 'fields' || field.startsWith('fields[')) return 'fields';
  const question = /^questions\[(\d+)\](?:\.(key|label|type|options|required))?$/.exec(field);
  if (question) {
    const row = rows[Number(question[1])] ?? Number(question[1]);
    return question[2] ? `q${row}-${question[2]}` : `q${row}`;
  }
  if (field === 'questions') return 'q0';
  if (
    field === 'name' ||
    field === 'language' ||
    field === 'redirectUrl' ||
    field === 'honeypotField' ||
    field === 'consentText'
  ) {
    return field;
  }
  if (field === 'autoReply') return 'autoReply';
  if (field === 'allowedOrigins' || field.startsWith('allowedOrigins[')) return 'allowedOrigins';
  if (field === 'captcha' || field === 'captcha.provider') return 'captchaProvider';
  if (field === 'captcha.siteKey') return 'captchaSiteKey';
  if (field === 'captcha.secret') return 'captchaSecret';
  if (field === 'defaults' || field === 'defaults.priority') return 'defaultPriority';
  if (field === 'defaults.category') return 'defaultCategory';
  return undefined;
}

/**
 * The API's problems at the fields of the page, one entry per field: the first problem's sentence, and the others'
 * (several origins) in `more`.
 */
function pageErrors(errors: readonly FieldError[], rows: readonly number[] = []): PageError[] {
  const out = new Map<string, { messages: string[]; texts: FieldErrorText[] }>();
  for (const e of errors) {
    const field = pageField(e.field, rows) ?? e.field;
    const message = /^must be a non-empty string/.test(e.message) ? 'is required' : e.message;
    const entry = out.get(field) ?? { messages: [], texts: [] };
    entry.messages.push(message);
    entry.texts.push(e.text ?? { key: 'validation.invalid' });
    out.set(field, entry);
  }
  return [...out].map(([field, { messages, texts }]) => ({
    field,
    message: messages.join('; '),
    text: texts[0]!,
    ...(texts.length > 1 ? { more: texts.slice(1) } : {}),
  }));
}

/** The captcha settings as sent: a provider needs a secret (an empty one keeps the stored one of that provider). */
function readCaptcha(
  values: FormValues,
  secret: string,
  current: { form: Form; secret: string | null } | undefined,
  errors: FieldError[],
): FormInput['captcha'] {
  if (values.captchaProvider) {
    // An empty secret keeps the stored one, but only for the provider it belongs to.
    const kept = current?.form.captcha?.provider === values.captchaProvider ? current.secret : null;
    if (!secret && !kept) {
      errors.push({
        field: 'captchaSecret',
        message: current?.form.captcha ? 'is required for another provider' : 'is required with a provider',
        text: {
          key: current?.form.captcha
            ? 'forms.validation.secretForProvider'
            : 'forms.validation.secretRequired',
        },
      });
    }
    return {
      provider: values.captchaProvider,
      siteKey: values.captchaSiteKey,
      secret: secret || kept || '',
    };
  } else if (values.captchaSiteKey || secret) {
    errors.push({
      field: 'captchaProvider',
      message: 'is needed for a site key and secret: choose one',
      text: { key: 'forms.validation.providerNeeded' },
    });
  }
  return null;
}

/** What the page's form sent, as typed (to show again) and as the API's input. */
function readBody(
  body: unknown,
  current: { form: Form; secret: string | null } | undefined,
): { values: FormValues; input: FormInput; errors: FieldError[]; rows: number[] } {
  const fields = readFields(body);
  const { rows: typedRows, questions, index } = readQuestions(body);
  const values: FormValues = {
    name: text(body, 'name'),
    // A post without it (an older page) keeps the form's language, or takes the brand's.
    language: text(body, 'language') || (current?.form.language ?? ''),
    allowedOrigins: text(body, 'allowedOrigins'),
    redirectUrl: text(body, 'redirectUrl').trim(),
    honeypotField: text(body, 'honeypotField').trim(),
    captchaProvider: text(body, 'captchaProvider'),
    captchaSiteKey: text(body, 'captchaSiteKey').trim(),
    // Browsers send a textarea's line breaks as CRLF; the snippet and pages use LF.
    consentText: text(body, 'consentText').replace(/\r\n?/g, '\n'),
    autoReply: text(body, 'autoReply') !== '',
    defaultPriority: text(body, 'defaultPriority'),
    defaultCategory: text(body, 'defaultCategory'),
    fields: fields ?? editorFields(current?.form.fields ?? DEFAULT_FIELDS),
    questions: questions === undefined ? questionRows(current?.form) : typedRows,
  };
  const errors: FieldError[] = [];
  const captcha = readCaptcha(values, text(body, 'captchaSecret').trim(), current, errors);
  const input: FormInput = {
    name: values.name,
    language: values.language || undefined,
    allowedOrigins: values.allowedOrigins
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean),
    redirectUrl: values.redirectUrl || null,
    honeypotField: values.honeypotField || DEFAULT_HONEYPOT,
    captcha,
    consentText: values.consentText.trim() || null,
    autoReply: values.autoReply,
    defaults: { priority: values.defaultPriority || null, category: values.defaultCategory.trim() || null },
    ...(fields
      ? { fields: fields.filter((f) => f.shown).map((f) => ({ name: f.name, required: f.required })) }
      : {}),
    ...(questions ? { questions } : {}),
  };
  return { values, input, errors, rows: index };
}

/**
 * Every problem at once: this page's own (the captcha fields) and those of the API's validation (parseFormInput,
 * the same the create and update run), at most one message per field of the page.
 */
function problems(
  input: FormInput,
  creating: boolean,
  own: readonly FieldError[],
  rows: readonly number[],
): PageError[] {
  let theirs: PageError[] = [];
  try {
    parseFormInput(input, creating);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    theirs = pageErrors(error.errors, rows);
  }
  const mine = pageErrors(own);
  const taken = new Set(mine.map((e) => e.field));
  return [...mine, ...theirs.filter((e) => !taken.has(e.field))];
}

const idOf = (request: FastifyRequest) => pathParam(request, 'id');

async function showForm(
  deps: RouteDeps,
  reply: FastifyReply,
  user: SessionUser,
  form: Form,
  extra: { values?: FormValues; errors?: PageError[]; message?: string | undefined } = {},
  status = 200,
) {
  const endpoint = formEndpoint(deps.config.publicUrl, form.id);
  const secretStored = (await formCaptchaSecret(deps.database, user.brandId, form.id)) !== null;
  const country = await brandCountry(deps.database, user.brandId);
  const view = formPage({
    user,
    form,
    endpoint,
    snippet: formSnippet(form, endpoint, deps.config.attachments, country),
    fetchExample: formFetchExample(endpoint, form.language),
    values: extra.values ?? formValuesOf(form),
    errors: extra.errors ?? [],
    secretStored,
    message: extra.message ? notice(extra.message) : undefined,
    preview: formPreview(form, deps.config.attachments, country),
    refusals: await formRefusals(deps.database, user.brandId, form.id),
  });
  return sendPage(reply, view, status);
}

async function showForms(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const cursor = text(request.query, 'cursor');
  const page = await listForms(deps.database, user.brandId, {
    limit: MAX_LIMIT,
    order: 'desc',
    ...(isCursor(cursor) ? { cursor } : {}),
  });
  const message = doneMessage(user, text(request.query, 'done'));
  return sendPage(
    reply,
    formsPage({
      user,
      forms: page.data,
      olderHref: page.nextCursor ? withQuery(BASE, { cursor: page.nextCursor }) : undefined,
      message: message ? notice(message) : undefined,
    }),
  );
}

async function addForm(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const { values, input, errors: own, rows } = readBody(request.body, undefined);
  const errors = problems(input, true, own, rows);
  if (errors.length) return sendPage(reply, newFormPage({ user, values, errors }), 422);
  const form = await createForm(deps.database, user.brandId, input);
  request.log.info({ formId: form.id, userId: user.userId }, 'form created in the dashboard');
  return seeOther(reply, `${BASE}/${form.id}?done=created`);
}

async function changeForm(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const form = await getForm(deps.database, user.brandId, idOf(request));
  const secret = await formCaptchaSecret(deps.database, user.brandId, form.id);
  const { values, input, errors: own, rows } = readBody(request.body, { form, secret });
  const errors = problems(input, false, own, rows);
  if (errors.length) return showForm(deps, reply, user, form, { values, errors }, 422);
  await updateForm(deps.database, user.brandId, form.id, input);
  request.log.info({ formId: form.id, userId: user.userId }, 'form changed in the dashboard');
  return seeOther(reply, `${BASE}/${form.id}?done=saved`);
}

/**
 * The live preview: the hosted form as the editor's unsaved values would show it, as a fragment for the page's
 * script to put in place of the preview. Nothing is saved; values not (yet) valid show as saved.
 */
async function previewForm(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const form = await getForm(deps.database, user.brandId, idOf(request));
  const secret = await formCaptchaSecret(deps.database, user.brandId, form.id);
  const { input } = readBody(request.body, { form, secret });
  const country = await brandCountry(deps.database, user.brandId);
  return reply
    .type('text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .send(String(formPreview(previewOf(form, input), deps.config.attachments, country)));
}

export default async function formRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const { database } = deps;
  const admin = { schema: hidden, config: adminPage };
  app.get('/settings/forms', admin, (request, reply) => showForms(deps, request, reply));
  app.get('/settings/forms/new', admin, async (request, reply) => {
    const user = userOf(request);
    return sendPage(reply, newFormPage({ user, values: empty(await brandLanguage(deps, user)), errors: [] }));
  });
  app.post('/settings/forms', admin, (request, reply) => addForm(deps, request, reply));
  app.get('/settings/forms/:id', admin, async (request, reply) => {
    const user = userOf(request);
    const form = await getForm(database, user.brandId, idOf(request));
    return showForm(deps, reply, user, form, { message: doneMessage(user, text(request.query, 'done')) });
  });
  app.post('/settings/forms/:id', admin, (request, reply) => changeForm(deps, request, reply));
  app.post('/settings/forms/:id/preview', admin, (request, reply) => previewForm(deps, request, reply));
  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post(`/settings/forms/:id/${action}`, admin, async (request, reply) => {
      const user = userOf(request);
      const form = await updateForm(database, user.brandId, idOf(request), { enabled });
      request.log.info({ formId: form.id, userId: user.userId }, `form ${action}d in the dashboard`);
      return seeOther(reply, `${BASE}/${form.id}?done=${action}d`);
    });
  }
  app.get('/settings/forms/:id/delete', admin, async (request, reply) => {
    const user = userOf(request);
    const form = await getForm(database, user.brandId, idOf(request));
    return sendPage(reply, deleteFormPage(user, form));
  });
  app.post('/settings/forms/:id/delete', admin, async (request, reply) => {
    const user = userOf(request);
    await deleteForm(database, user.brandId, idOf(request));
    request.log.info({ formId: idOf(request), userId: user.userId }, 'form deleted in the dashboard');
    return seeOther(reply, `${BASE}?done=deleted`);
  });
}
