// Settings > Forms: the same domain functions as /v1/forms, for the signed-in user's brand. Every change is a form
// post answered with a 303 (Post/Redirect/Get); a refused one shows the page again with each problem at its field.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { userOf } from '../../accounts/dashboard/session.js';
import type { SessionUser } from '../../accounts/sessions.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { notice } from '../../platform/web/components.js';
import { pathParam, seeOther, sendPage, text, withQuery } from '../../platform/web/http.js';
import { type FieldError, ValidationError } from '../../shared/errors.js';
import { isCursor, MAX_LIMIT } from '../../shared/paging.js';
import {
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
  updateForm,
} from '../forms.js';
import { formFetchExample, formSnippet } from '../views.js';
import { deleteFormPage, type FormValues, formPage, formsPage, formValuesOf, newFormPage } from './views.js';

const hidden = { hide: true };
const adminPage = { page: 'admin' as const };
const BASE = '/dashboard/settings/forms';

const EMPTY: FormValues = {
  name: '',
  allowedOrigins: '',
  redirectUrl: '',
  honeypotField: DEFAULT_HONEYPOT,
  captchaProvider: '',
  captchaSiteKey: '',
  consentText: '',
  autoReply: false,
  defaultPriority: '',
  defaultCategory: '',
};

const MESSAGES: Record<string, string> = {
  created: 'The form is ready. Paste the form below into your website, or link to the hosted page.',
  saved:
    'Your changes are saved. The form on your website keeps working; paste it again only if you changed the honeypot field or the consent text.',
  enabled: 'The form is enabled: it takes requests again.',
  disabled:
    'The form is disabled: its endpoint and hosted page answer “not found” until you enable it again.',
  deleted: 'The form is deleted. Leads it brought in are kept.',
};

/** Where the API reports a problem, as the field of this page's form that holds it. */
function pageField(field: string): keyof FormValues | 'captchaSecret' | undefined {
  if (field === 'name' || field === 'redirectUrl' || field === 'honeypotField' || field === 'consentText') {
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

/** The API's problems in people's words, one per field of the page (several origins' problems joined). */
function pageErrors(errors: readonly FieldError[]): FieldError[] {
  const out = new Map<string, string[]>();
  for (const e of errors) {
    const field = pageField(e.field) ?? e.field;
    const message = /^must be a non-empty string/.test(e.message) ? 'is required' : e.message;
    out.set(field, [...(out.get(field) ?? []), message]);
  }
  return [...out].map(([field, messages]) => ({ field, message: messages.join('; ') }));
}

/** What the page's form sent, as typed (to show again) and as the API's input. */
function readBody(
  body: unknown,
  current: { form: Form; secret: string | null } | undefined,
): { values: FormValues; input: FormInput; errors: FieldError[] } {
  const values: FormValues = {
    name: text(body, 'name'),
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
  };
  const secret = text(body, 'captchaSecret').trim();
  const errors: FieldError[] = [];
  let captcha: FormInput['captcha'] = null;
  if (values.captchaProvider) {
    // An empty secret keeps the stored one, but only for the provider it belongs to.
    const kept = current?.form.captcha?.provider === values.captchaProvider ? current.secret : null;
    if (!secret && !kept) {
      errors.push({
        field: 'captchaSecret',
        message: current?.form.captcha ? 'is required for another provider' : 'is required with a provider',
      });
    }
    captcha = {
      provider: values.captchaProvider,
      siteKey: values.captchaSiteKey,
      secret: secret || kept || '',
    };
  } else if (values.captchaSiteKey || secret) {
    errors.push({ field: 'captchaProvider', message: 'is needed for a site key and secret: choose one' });
  }
  const input: FormInput = {
    name: values.name,
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
  };
  return { values, input, errors };
}

/**
 * Every problem at once: this page's own (the captcha fields) and those of the API's validation (parseFormInput,
 * the same the create and update run), at most one message per field of the page.
 */
function problems(input: FormInput, creating: boolean, own: readonly FieldError[]): FieldError[] {
  let theirs: FieldError[] = [];
  try {
    parseFormInput(input, creating);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    theirs = pageErrors(error.errors);
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
  extra: { values?: FormValues; errors?: FieldError[]; message?: string | undefined } = {},
  status = 200,
) {
  const endpoint = formEndpoint(deps.config.publicUrl, form.id);
  const secretStored = (await formCaptchaSecret(deps.database, user.brandId, form.id)) !== null;
  const view = formPage({
    user,
    form,
    endpoint,
    snippet: formSnippet(form, endpoint),
    fetchExample: formFetchExample(endpoint),
    values: extra.values ?? formValuesOf(form),
    errors: extra.errors ?? [],
    secretStored,
    message: extra.message ? notice(extra.message) : undefined,
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
  const message = MESSAGES[text(request.query, 'done')];
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
  const { values, input, errors: own } = readBody(request.body, undefined);
  const errors = problems(input, true, own);
  if (errors.length) return sendPage(reply, newFormPage({ user, values, errors }), 422);
  const form = await createForm(deps.database, user.brandId, input);
  request.log.info({ formId: form.id, userId: user.userId }, 'form created in the dashboard');
  return seeOther(reply, `${BASE}/${form.id}?done=created`);
}

async function changeForm(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const user = userOf(request);
  const form = await getForm(deps.database, user.brandId, idOf(request));
  const secret = await formCaptchaSecret(deps.database, user.brandId, form.id);
  const { values, input, errors: own } = readBody(request.body, { form, secret });
  const errors = problems(input, false, own);
  if (errors.length) return showForm(deps, reply, user, form, { values, errors }, 422);
  await updateForm(deps.database, user.brandId, form.id, input);
  request.log.info({ formId: form.id, userId: user.userId }, 'form changed in the dashboard');
  return seeOther(reply, `${BASE}/${form.id}?done=saved`);
}

export default async function formRoutes(app: FastifyInstance, { deps }: { deps: RouteDeps }) {
  const { database } = deps;
  const admin = { schema: hidden, config: adminPage };
  app.get('/settings/forms', admin, (request, reply) => showForms(deps, request, reply));
  app.get('/settings/forms/new', admin, async (request, reply) =>
    sendPage(reply, newFormPage({ user: userOf(request), values: EMPTY, errors: [] })),
  );
  app.post('/settings/forms', admin, (request, reply) => addForm(deps, request, reply));
  app.get('/settings/forms/:id', admin, async (request, reply) => {
    const user = userOf(request);
    const form = await getForm(database, user.brandId, idOf(request));
    return showForm(deps, reply, user, form, { message: MESSAGES[text(request.query, 'done')] });
  });
  app.post('/settings/forms/:id', admin, (request, reply) => changeForm(deps, request, reply));
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
