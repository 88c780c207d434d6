// The public side of website forms, without an API key: POST /f/{formId} (form-encoded, multipart with files, or
// JSON), its CORS preflight, the hosted page GET /f/{formId} and GET /f/{formId}/thanks. Registered as its own
// encapsulated plugin: the form-body and multipart parsers, the HTML error handler and the page headers stay here.
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import multipart, { type Multipart } from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { multipartOptions } from '../../attachments/serve.js';
import { MalformedUploadError, Upload } from '../../attachments/upload.js';
import { ALL_STATUSES } from '../../leads/states.js';
import { registerFormBody } from '../../platform/http/body-text.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { sendProblem } from '../../platform/http/problem.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { RateLimiter } from '../../platform/rate-limit/limiter.js';
import { requestLocale } from '../../platform/web/messages.js';
import { type FieldError, type FieldErrorText, ValidationError } from '../../shared/errors.js';
import { isLocale, type Locale, translator } from '../../shared/i18n/index.js';
import { hasUrlControl } from '../../shared/text.js';
import { CAPTCHA_PROVIDER_INFO } from '../captcha.js';
import { backLink, findPublicForm, type PublicForm } from '../forms.js';
import { typedValues } from '../submission.js';
import {
  admitPost,
  completePost,
  DEFAULT_FORM_POSTS_PER_HOUR,
  DEFAULT_FORM_POSTS_PER_MINUTE,
  type PostHeaders,
  type SubmitDeps,
  type SubmitResult,
} from '../submit.js';
import { errorPage, type FileLimits, formErrorText, hostedFormPage, thanksPage } from '../views.js';

const FormParams = Type.Object(
  { formId: Type.String({ maxLength: 100, description: 'The form’s public frm_… id.' }) },
  { additionalProperties: false },
);

const isJson = (request: FastifyRequest) =>
  /^application\/(?:[\w.+-]+\+)?json\b/i.test(String(request.headers['content-type'] ?? ''));

/**
 * Whether the answer is JSON: a JSON body, or a form or multipart post that asks for JSON (`Accept:
 * application/json` without `text/html`, as a page's script sends `new FormData(form)` with its photos; Formspree
 * answers the same way). A browser's own form post asks for text/html and gets pages.
 */
const wantsJson = (request: FastifyRequest) => {
  if (isJson(request)) return true;
  const accept = String(request.headers.accept ?? '').toLowerCase();
  return /(?:^|,)\s*application\/json\b/.test(accept) && !accept.includes('text/html');
};

/** The origin a post comes from: Origin, else the Referer's origin; undefined when neither (or "null"). */
function requestOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== '') return origin === 'null' ? undefined : origin;
  const referer = request.headers.referer;
  if (typeof referer !== 'string' || referer === '') return undefined;
  try {
    const parsed = new URL(referer).origin;
    return parsed === 'null' ? undefined : parsed;
  } catch {
    return undefined;
  }
}

/**
 * The language of what a form says to people: `?lang=nl|en` (the hosted page in the other language, and the post
 * from it), else the form's own.
 */
function formLocale(request: FastifyRequest, form: PublicForm): Locale {
  const lang = (request.query as Record<string, unknown> | undefined)?.lang;
  return isLocale(lang) ? lang : form.language;
}

/**
 * The headers of every HTML page, `locale` its language. `withForm`: the page shows the form itself (the hosted
 * page, also re-rendered after a failed post), so a captcha widget's provider may run its script and frames there,
 * and nothing else may.
 */
function htmlHeaders(
  reply: FastifyReply,
  form: PublicForm | undefined,
  locale: Locale,
  withForm = false,
): FastifyReply {
  const ancestors = form?.allowedOrigins.length ? form.allowedOrigins.join(' ') : "'none'";
  const widget = withForm && form?.captcha ? CAPTCHA_PROVIDER_INFO[form.captcha.provider].csp : undefined;
  const sources = (list: string[] | undefined) => (list?.length ? ` ${list.join(' ')}` : '');
  let redirectOrigin = '';
  if (form?.redirectUrl) {
    try {
      redirectOrigin = ` ${new URL(form.redirectUrl).origin}`;
    } catch {}
  }
  return reply
    .type('text/html; charset=utf-8')
    .header(
      'Content-Security-Policy',
      [
        "default-src 'none'",
        ...(widget ? [`script-src${sources(widget.script)}`, `frame-src${sources(widget.frame)}`] : []),
        ...(widget?.connect ? [`connect-src${sources(widget.connect)}`] : []),
        `style-src 'self'${sources(widget?.style)}`,
        "img-src 'self' data:",
        // Chrome applies form-action to the redirect after a post, so the redirect's origin is allowed too.
        `form-action 'self'${redirectOrigin}`,
        `frame-ancestors ${ancestors}`,
        "base-uri 'none'",
      ].join('; '),
    )
    .header('Content-Language', locale)
    .header('Referrer-Policy', 'strict-origin-when-cross-origin')
    .header('Cache-Control', 'no-store');
}

/** The text fields of a multipart post together: the body limit of every other post. */
const FIELDS_MAX_BYTES = 64 * 1024;

const tooLarge = () =>
  Object.assign(new Error('The fields of a post must be at most 64 KiB together.'), {
    statusCode: 413,
    code: 'FST_REQ_BODY_TOO_LARGE',
  });

/** Reads one part off the multipart stream; a broken body is a 400, the stream's own limits keep their status. */
async function nextPart(parts: AsyncIterator<Multipart>): Promise<Multipart | undefined> {
  try {
    const step = await parts.next();
    return step.done ? undefined : step.value;
  } catch (error) {
    if (typeof (error as { statusCode?: unknown }).statusCode === 'number') throw error;
    throw new MalformedUploadError(error);
  }
}

/** Reads the rest of a file nobody keeps, so the parts after it still arrive. */
async function drain(stream: Readable): Promise<void> {
  stream.resume();
  // A file cut off at its limit ends with an error: it is over all the same.
  await finished(stream).catch(() => {});
}

/**
 * A multipart post: its text fields as the body (a name sent twice as a list, as parseSubmission expects), at
 * most 64 KiB together (413 beyond), and every file part, whatever its field name, streamed into `upload`. A file
 * the upload refuses (422: type, size, count, name) ends the files: it and those after it are read and dropped,
 * so the fields after them still arrive for the page shown again. Over the total (413) and a broken body (400)
 * are thrown.
 */
async function readMultipart(
  request: FastifyRequest,
  upload: Upload,
): Promise<{ body: Record<string, string | string[]>; fileErrors: FieldError[] }> {
  const body: Record<string, string | string[]> = Object.create(null);
  const fileErrors: FieldError[] = [];
  let fieldBytes = 0;
  const parts = request.parts()[Symbol.asyncIterator]();
  for (let part = await nextPart(parts); part; part = await nextPart(parts)) {
    if (part.type === 'file') {
      // A file field left empty: browsers send a part without a name or bytes.
      if (fileErrors.length || part.filename === '') {
        await drain(part.file);
        continue;
      }
      try {
        await upload.add(part.filename, part.file);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        fileErrors.push(...error.errors);
        await drain(part.file);
      }
      continue;
    }
    // A field part must have a name (RFC 7578); one without is a broken body (a 400), as a missing boundary is.
    if (typeof part.fieldname !== 'string' || part.fieldname === '') {
      throw new MalformedUploadError('a field part has no name');
    }
    const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value ?? '');
    fieldBytes += Buffer.byteLength(part.fieldname) + Buffer.byteLength(value);
    if (part.valueTruncated || fieldBytes > FIELDS_MAX_BYTES) throw tooLarge();
    const before = body[part.fieldname];
    body[part.fieldname] =
      before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  return { body: { ...body }, fileErrors };
}

/** The schema of POST /f/{formId}, for the document (a fresh object for each app). */
function submitSchema() {
  return {
    operationId: 'submitForm',
    tags: ['Forms'],
    summary: 'Post a website form (no API key)',
    description:
      'The public endpoint a website form posts to: `application/x-www-form-urlencoded`, `multipart/form-data` (fields, and files: every file part is an attachment of the new lead whatever its field name, with the limits and refusals of Upload a lead’s photos and files — a 422 naming `attachments` and the file for a bad type, a file too big or too many, a 413 over the total; the text fields keep the 64 KiB body limit together) or `application/json`, with the lead fields of Create a lead (phone also in the national format of the posted `country`, else the brand’s; `country` as a code or the country’s Dutch or English name). The form’s `fields` marked required must be filled in (a 422 names each one left empty); when the form shows both email and phone and requires neither, at least one of them (else a 422 naming both). Answers to the form’s `questions` are kept in `extraFields` under their keys (a select’s answer must be one of its options, a ticked checkbox is kept as "yes"; a required one left empty is a 422 naming its key). Other unknown fields are kept as `extraFields` (at most 20, each at most 1,000 characters), utm_*/referrer/landingPage as `attribution`. The `Origin` (or `Referer`) must be one of the form’s allowed origins or this service’s own, else 403. A form with a captcha needs the provider’s token in its usual field (`cf-turnstile-response` for Turnstile, `h-captcha-response` for hCaptcha, `g-recaptcha-response` for reCAPTCHA), in form and JSON posts alike; it is checked with the provider once the fields are valid, and a missing or refused token, or a provider that does not answer within 5 s, is a 422 naming `captcha` (nothing is stored; the person may send again). A filled honeypot is answered like success, without a captcha check. Per form, at most 10 posts a minute from one client address (every post counts) and 300 an hour from all addresses together (only posts the form takes count: valid fields and an accepted captcha; honeypot spam has an hour of its own) (by default; `RATE_LIMIT_FORM_POSTS_PER_MINUTE`, `RATE_LIMIT_FORM_POSTS_PER_HOUR`), then 429 with `Retry-After`. Form posts are answered with a 303 (success) or HTML pages; JSON posts, and form or multipart posts that ask for JSON (`Accept: application/json` without `text/html`: a page’s script sending `new FormData(form)` with its photos), with 201 `{ id, status, receivedAt }` or problem+json, and CORS headers for allowed origins. The pages, and the `message` of each entry in a 422’s `errors`, are in the form’s `language` (or `?lang=nl|en`); the problem’s `type`, `title`, `detail` and each entry’s `field` stay the API’s.',
    security: [],
    params: FormParams,
    consumes: ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'],
    response: {
      201: Type.Object(
        {
          id: Type.String({ description: 'wrk_… of the new lead.' }),
          status: Type.String({ enum: [...ALL_STATUSES], description: 'The new lead’s state: request.' }),
          receivedAt: Type.String({ format: 'date-time' }),
        },
        { additionalProperties: false, title: 'FormSubmission' },
      ),
      303: {
        type: 'null',
        description:
          'Form posts: to redirectUrl, or /f/{formId}/thanks (with `back`, the page the post came from, when its Referer is on an allowed origin).',
      },
      ...errorResponses([403, 404, 413, 415, 422, 429]),
    },
  };
}

/** The schema of GET /f/{formId}, for the document (a fresh object for each app). */
function showSchema() {
  return {
    operationId: 'showForm',
    tags: ['Forms'],
    summary: 'The hosted form page (no API key)',
    description:
      'An accessible HTML page with the brand’s name, the form’s fields in its order (country as a select of names in the page’s language, the brand’s chosen) and its questions after the job’s fields, the consent box and, when the form has a captcha, the provider’s widget (its Content-Security-Policy allows that provider’s script and frames and no other script); it may be framed only by the form’s allowed origins. In the form’s `language`, with `<html lang>` and `Content-Language`; `?lang=nl|en` shows it in the other language (and its post and thank-you page keep that language).',
    security: [],
    params: FormParams,
    produces: ['text/html'],
    response: {
      200: {
        description: 'The hosted form page.',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
      ...errorResponses([404]),
    },
  };
}

/** A page for people, in `locale`: the form's language, or Accept-Language where there is no such form. */
const sendHtmlError = (
  reply: FastifyReply,
  status: number,
  message: FieldErrorText,
  locale: Locale,
  form?: PublicForm,
) =>
  htmlHeaders(reply, form, locale)
    .code(status)
    .send(errorPage(status, message, locale));

const NOT_FOUND_TEXT: FieldErrorText = { key: 'publicForm.error.notFound.message' };

/**
 * Browsers get HTML pages, in the form's language (looked up again: the body failed before the route ran) or
 * Accept-Language when the form cannot be found; JSON clients get the app's problem+json (the parent's handler).
 */
function htmlErrorHandler(deps: RouteDeps) {
  return async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (wantsJson(request)) {
      // problem+json from the parent's handler; a script on an allowed origin may read it (a 413, a broken body).
      const origin = requestOrigin(request);
      const formId = (request.params as { formId?: unknown } | undefined)?.formId;
      const form =
        origin && typeof formId === 'string'
          ? await findPublicForm(deps.database, formId).catch(() => undefined)
          : undefined;
      if (origin && form?.allowedOrigins.includes(origin)) {
        reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin');
      }
      throw error;
    }
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, 'form post failed');
    let form: PublicForm | undefined;
    try {
      const formId = (request.params as { formId?: unknown } | undefined)?.formId;
      if (typeof formId === 'string') form = await findPublicForm(deps.database, formId);
    } catch {
      // The database may be why the post failed: the page then follows Accept-Language.
    }
    const locale = form ? formLocale(request, form) : requestLocale(request);
    if (status === 413 || error.code === 'FST_FILES_LIMIT' || error.code === 'FST_REQ_FILE_TOO_LARGE') {
      return sendHtmlError(reply, 413, { key: 'publicForm.error.tooLarge.message' }, locale, form);
    }
    if (status === 415) {
      return sendHtmlError(reply, 415, { key: 'publicForm.error.unsupported.message' }, locale, form);
    }
    if (status >= 500) {
      return sendHtmlError(reply, 500, { key: 'publicForm.error.internal.message' }, locale, form);
    }
    return sendHtmlError(reply, 400, { key: 'publicForm.error.badRequest.message' }, locale, form);
  };
}

/** A post's outcome as the answer: JSON clients get JSON (CORS headers for allowed origins), browsers pages. */
function answer(
  request: FastifyRequest,
  reply: FastifyReply,
  json: boolean,
  result: SubmitResult,
  files: FileLimits,
) {
  if (result.outcome === 'not_found') {
    return json
      ? sendProblem(request, reply, 'not_found', 'No such form, or it is not taking requests.')
      : sendHtmlError(reply, 404, NOT_FOUND_TEXT, requestLocale(request));
  }
  const { form } = result;
  const locale = formLocale(request, form);
  if (result.outcome === 'forbidden') {
    request.log.warn({ formId: form.id, origin: result.origin }, 'form post refused for its origin');
    return json
      ? sendProblem(request, reply, 'forbidden', result.message)
      : sendHtmlError(reply, 403, result.text, locale, form);
  }
  if (json && result.crossOrigin) {
    reply.header('Access-Control-Allow-Origin', result.crossOrigin).header('Vary', 'Origin');
  }
  switch (result.outcome) {
    case 'rate_limited':
      reply.header('Retry-After', String(result.retryAfterSeconds));
      return json
        ? sendProblem(request, reply, 'rate_limited', result.message)
        : sendHtmlError(reply, 429, result.text, locale, form);
    case 'invalid': {
      // 422: JSON gets problem+json whose entries' messages are sentences in the form's language (the detail,
      // types and fields stay the API's); a form post gets the hosted form again, values kept.
      const { error } = result;
      if (json) {
        const tr = translator(locale);
        return sendProblem(request, reply, 'validation', error.message, {
          errors: error.errors.map((e) => ({ field: e.field, message: formErrorText(tr, e, form) })),
        });
      }
      return htmlHeaders(reply, form, locale, true)
        .code(422)
        .send(
          hostedFormPage(form, locale, files, { values: typedValues(request.body), errors: error.errors }),
        );
    }
    case 'created':
      if (json) return reply.code(201).send(result.lead);
      return reply
        .code(303)
        .header('Location', thanksLocation(request, form, locale))
        .send();
  }
}

/**
 * Where a browser goes after a post: the form's redirectUrl, else its thank-you page, carrying in `back` the page
 * the post came from (its Referer) when that is on an allowed origin, so the thank-you page can link back to it.
 */
function thanksLocation(request: FastifyRequest, form: PublicForm, locale: Locale): string {
  // A redirectUrl with a control character (saved before they were refused) would break the answer after the
  // lead is stored: the thank-you page is the safe way out.
  if (form.redirectUrl && !hasUrlControl(form.redirectUrl)) return form.redirectUrl;
  const query = new URLSearchParams();
  if (locale !== form.language) query.set('lang', locale);
  const back = backLink(form, request.headers.referer);
  if (back) query.set('back', back);
  const text = query.toString();
  return `/f/${form.id}/thanks${text ? `?${text}` : ''}`;
}

/** The CORS preflight: allowed origins may post JSON. */
async function preflight(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const { formId } = request.params as { formId: string };
  const form = await findPublicForm(deps.database, formId);
  const origin = request.headers.origin;
  reply.header('Vary', 'Origin');
  if (form && typeof origin === 'string' && form.allowedOrigins.includes(origin)) {
    reply
      .header('Access-Control-Allow-Origin', origin)
      .header('Access-Control-Allow-Methods', 'POST')
      .header('Access-Control-Allow-Headers', 'content-type')
      .header('Access-Control-Max-Age', '600');
  }
  return reply.code(204).send();
}

/** The hosted form page, or its thank-you page. */
async function formPage(deps: RouteDeps, request: FastifyRequest, reply: FastifyReply, thanks: boolean) {
  const form = await findPublicForm(deps.database, (request.params as { formId: string }).formId);
  if (!form) return sendHtmlError(reply, 404, NOT_FOUND_TEXT, requestLocale(request));
  const locale = formLocale(request, form);
  if (thanks) {
    // `back` is checked again here: anyone can write a link to this page with any `back`.
    const back = backLink(form, (request.query as Record<string, unknown> | undefined)?.back);
    return htmlHeaders(reply, form, locale).send(thanksPage(form.brandName, locale, back));
  }
  return htmlHeaders(reply, form, locale, true).send(hostedFormPage(form, locale, deps.config.attachments));
}

/**
 * POST /f/{formId}. The form, the origin and the limits are checked before a multipart body is read, so a refused
 * post's files are never streamed to storage; an admitted post's files are stored first, and removed again unless
 * its lead is created.
 */
async function submitHandler(
  deps: RouteDeps,
  submitDeps: SubmitDeps,
  ownOrigin: string,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const json = wantsJson(request);
  const headers: PostHeaders = {
    formId: (request.params as { formId: string }).formId,
    origin: requestOrigin(request),
    ownOrigins: [ownOrigin, `${request.protocol}://${request.host}`],
    ip: request.ip,
  };
  const admitted = await admitPost(submitDeps, headers);
  if (admitted.outcome !== 'admitted') return answer(request, reply, json, admitted, deps.config.attachments);
  const upload = new Upload(deps.storage, deps.config.attachments);
  try {
    const read = request.isMultipart() ? await readMultipart(request, upload) : undefined;
    const result = await completePost(submitDeps, admitted, {
      ...headers,
      body: read ? read.body : request.body,
      json: isJson(request),
      log: request.log,
      files: upload.files,
      fileErrors: read?.fileErrors,
    });
    // On any refusal nothing of the post is kept; a created lead's files are its attachments now.
    if (result.outcome !== 'created') await upload.discard();
    if (read) request.body = read.body;
    return answer(request, reply, json, result, deps.config.attachments);
  } catch (error) {
    await upload.discard();
    throw error;
  }
}

export default async function publicFormRoutes(
  app: FastifyInstance,
  { deps, limiter }: { deps: RouteDeps; limiter: RateLimiter },
) {
  const submitDeps: SubmitDeps = {
    database: deps.database,
    maxFilesPerLead: deps.config.attachments.maxFilesPerLead,
    limiter,
    postsPerMinute: deps.config.rateLimit.formPostsPerMinute ?? DEFAULT_FORM_POSTS_PER_MINUTE,
    postsPerHour: deps.config.rateLimit.formPostsPerHour ?? DEFAULT_FORM_POSTS_PER_HOUR,
    captcha: deps.config.captcha,
  };
  const ownOrigin = new URL(deps.config.publicUrl).origin;
  // Form-encoded bodies that are not UTF-8 are refused, not stored with U+FFFD (@fastify/formbody would).
  registerFormBody(app);
  // Files are streamed to storage as they arrive (request.parts(), read by readMultipart), never buffered. The
  // fields keep the 64 KiB body limit between them (readMultipart counts them).
  await app.register(
    multipart,
    multipartOptions(deps.config.attachments, { count: 60, bytes: FIELDS_MAX_BYTES }),
  );
  app.setErrorHandler(htmlErrorHandler(deps));

  app.post('/f/:formId', { schema: submitSchema() }, (request, reply) =>
    submitHandler(deps, submitDeps, ownOrigin, request, reply),
  );
  const hidden = () => ({ hide: true, params: FormParams });
  app.options('/f/:formId', { schema: hidden() }, (request, reply) => preflight(deps, request, reply));
  app.get('/f/:formId', { schema: showSchema() }, (request, reply) => formPage(deps, request, reply, false));
  app.get('/f/:formId/thanks', { schema: hidden() }, (request, reply) =>
    formPage(deps, request, reply, true),
  );
}
