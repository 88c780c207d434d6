// The public side of website forms, without an API key: POST /f/{formId} (form-encoded, multipart fields or
// JSON), its CORS preflight, the hosted page GET /f/{formId} and GET /f/{formId}/thanks. Registered as its own
// encapsulated plugin: the form-body and multipart parsers, the HTML error handler and the page headers stay here.
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createLead } from '../../leads/create.js';
import { ALL_STATUSES } from '../../leads/states.js';
import { registerFormBody } from '../../platform/http/body-text.js';
import type { RouteDeps } from '../../platform/http/deps.js';
import { sendProblem } from '../../platform/http/problem.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { RateLimiter } from '../../platform/rate-limit/limiter.js';
import { type FieldError, ValidationError } from '../../shared/errors.js';
import { CAPTCHA_PROVIDER_INFO, verifyCaptcha } from '../captcha.js';
import { findPublicForm, type PublicForm } from '../forms.js';
import { parseSubmission, typedValues } from '../submission.js';
import { errorPage, hostedFormPage, thanksPage } from '../views.js';

const FormParams = Type.Object(
  { formId: Type.String({ maxLength: 100, description: 'The form’s public frm_… id.' }) },
  { additionalProperties: false },
);

const isJson = (request: FastifyRequest) =>
  /^application\/(?:[\w.+-]+\+)?json\b/i.test(String(request.headers['content-type'] ?? ''));

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
 * The headers of every HTML page. `withForm`: the page shows the form itself (the hosted page, also re-rendered
 * after a failed post), so a captcha widget's provider may run its script and frames there, and nothing else may.
 */
function htmlHeaders(reply: FastifyReply, form: PublicForm | undefined, withForm = false): FastifyReply {
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
    .header('Referrer-Policy', 'strict-origin-when-cross-origin')
    .header('Cache-Control', 'no-store');
}

export const DEFAULT_FORM_POSTS_PER_MINUTE = 10;
export const DEFAULT_FORM_POSTS_PER_HOUR = 300;
const HOUR_MS = 60 * 60 * 1000;

/** "45 seconds", "12 minutes": how long until a limit's window resets. */
function waitText(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}

export default async function publicFormRoutes(
  app: FastifyInstance,
  { deps, limiter }: { deps: RouteDeps; limiter: RateLimiter },
) {
  const postsPerMinute = deps.config.rateLimit.formPostsPerMinute ?? DEFAULT_FORM_POSTS_PER_MINUTE;
  const postsPerHour = deps.config.rateLimit.formPostsPerHour ?? DEFAULT_FORM_POSTS_PER_HOUR;
  // Form-encoded bodies that are not UTF-8 are refused, not stored with U+FFFD (@fastify/formbody would).
  registerFormBody(app);
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    // Fields only: any file part is refused (413), and no part may outgrow the JSON body limit.
    limits: { files: 0, fileSize: 0, fields: 60, fieldSize: 64 * 1024, parts: 60 },
  });
  const ownOrigin = new URL(deps.config.publicUrl).origin;

  const sendHtmlError = (reply: FastifyReply, status: number, message: string, form?: PublicForm) =>
    htmlHeaders(reply, form).code(status).send(errorPage(status, message));

  // Browsers get HTML pages; JSON clients get the app's problem+json (the parent's handler).
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isJson(request)) throw error;
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (status === 413 || error.code === 'FST_FILES_LIMIT' || error.code === 'FST_REQ_FILE_TOO_LARGE') {
      return sendHtmlError(
        reply,
        413,
        'The form sent more than this service accepts (no files, at most 64 KiB).',
      );
    }
    if (status === 415) {
      return sendHtmlError(reply, 415, 'Send the form as a normal web form.');
    }
    if (status >= 500) {
      request.log.error({ err: error }, 'form post failed');
      return sendHtmlError(reply, 500, 'Your request could not be saved. Please try again later.');
    }
    return sendHtmlError(reply, 400, 'The form could not be read. Please go back and try again.');
  });

  const notFound = (request: FastifyRequest, reply: FastifyReply) =>
    isJson(request)
      ? sendProblem(request, reply, 'not_found', 'No such form, or it is not taking requests.')
      : sendHtmlError(reply, 404, 'This form does not exist or no longer takes requests.');

  app.post(
    '/f/:formId',
    {
      schema: {
        operationId: 'submitForm',
        tags: ['Forms'],
        summary: 'Post a website form (no API key)',
        description:
          'The public endpoint a website form posts to: `application/x-www-form-urlencoded`, `multipart/form-data` (fields only) or `application/json`, with the lead fields of Create a lead (phone also in the national format of the brand’s country). Unknown fields are kept as `extraFields` (at most 20, each at most 1,000 characters), utm_*/referrer/landingPage as `attribution`. The `Origin` (or `Referer`) must be one of the form’s allowed origins or this service’s own, else 403. A form with a captcha needs the provider’s token in its usual field (`cf-turnstile-response` for Turnstile, `h-captcha-response` for hCaptcha, `g-recaptcha-response` for reCAPTCHA), in form and JSON posts alike; it is checked with the provider once the fields are valid, and a missing or refused token, or a provider that does not answer within 5 s, is a 422 naming `captcha` (nothing is stored; the person may send again). A filled honeypot is answered like success, without a captcha check. Per form, at most 10 posts a minute from one client address and 300 an hour from all addresses together (by default; `RATE_LIMIT_FORM_POSTS_PER_MINUTE`, `RATE_LIMIT_FORM_POSTS_PER_HOUR`), then 429 with `Retry-After`. Form posts are answered with a 303 (success) or HTML pages; JSON posts with 201 `{ id, status, receivedAt }` or problem+json, and CORS headers for allowed origins.',
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
          303: { type: 'null', description: 'Form posts: to redirectUrl, or /f/{formId}/thanks.' },
          ...errorResponses([403, 404, 413, 415, 422, 429]),
        },
      },
    },
    async (request, reply) => {
      const { formId } = request.params as { formId: string };
      const json = isJson(request);
      const form = await findPublicForm(deps.database, formId);
      if (!form) return notFound(request, reply);
      const origin = requestOrigin(request);
      const allowedCross = origin !== undefined && form.allowedOrigins.includes(origin);
      // The service's own pages (the hosted form) post from PUBLIC_URL's origin, or from the host they were served
      // by (behind a trusted proxy, or without PUBLIC_URL set): a browser's Origin always names the page's host.
      const own = origin === ownOrigin || origin === `${request.protocol}://${request.host}`;
      if (!origin || (!allowedCross && !own)) {
        const message = origin
          ? `Posts from ${origin} are not allowed for this form.`
          : 'A post must carry an Origin or Referer header.';
        return json
          ? sendProblem(request, reply, 'forbidden', message)
          : sendHtmlError(reply, 403, message, form);
      }
      if (json && allowedCross) reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin');
      // Counted where the API's limits are (Redis when configured): per client address and form each minute,
      // then per form each hour from every address together. A post over the minute limit uses none of the hour's.
      const tooMany = (resetMs: number, message: (wait: string) => string) => {
        const retryAfter = Math.max(1, Math.ceil(resetMs / 1000));
        reply.header('Retry-After', String(retryAfter));
        const text = message(waitText(retryAfter));
        return json
          ? sendProblem(request, reply, 'rate_limited', text)
          : sendHtmlError(reply, 429, text, form);
      };
      const perAddress = await limiter.hit(`form:${form.id}:${request.ip}`, postsPerMinute);
      if (!perAddress.allowed) {
        return tooMany(
          perAddress.resetMs,
          (wait) => `Too many posts to this form from your address; try again in ${wait}.`,
        );
      }
      const perForm = await limiter.hit(`form-hour:${form.id}`, postsPerHour, undefined, HOUR_MS);
      if (!perForm.allowed) {
        return tooMany(
          perForm.resetMs,
          (wait) => `This form has taken as many posts as it can this hour; try again in ${wait}.`,
        );
      }

      // 422: JSON gets problem+json (the parent's handler); a form post gets the hosted form again, values kept.
      const invalid = (errors: FieldError[]) => {
        if (json) throw new ValidationError(errors);
        return htmlHeaders(reply, form, true)
          .code(422)
          .send(hostedFormPage(form, { values: typedValues(request.body), errors }));
      };
      let submission: ReturnType<typeof parseSubmission>;
      try {
        submission = parseSubmission(form, request.body, json);
      } catch (error) {
        // JSON gets the error as it is: its message counts the fields it does not list.
        if (!(error instanceof ValidationError) || json) throw error;
        return invalid(error.errors);
      }
      // Only a post whose fields are valid costs a call to the captcha provider; spam (its token is null) none.
      if (form.captcha && submission.captchaToken !== null) {
        const verdict = await verifyCaptcha(
          deps.config.captcha,
          {
            provider: form.captcha.provider,
            secret: form.captchaSecret,
            token: submission.captchaToken,
            remoteIp: request.ip,
            formId: form.id,
          },
          request.log,
        );
        if (!verdict.ok) return invalid([verdict.error]);
      }
      const lead = await createLead(
        deps.database,
        {
          brandId: form.brandId,
          source: 'form',
          keyId: null,
          keyName: null,
          form: {
            id: form.id,
            name: form.name,
            spam: submission.spam,
            extraFields: submission.extraFields,
            attribution: submission.attribution,
            consent: submission.consent,
          },
        },
        submission.input,
      );
      if (json) {
        return reply.code(201).send({ id: lead.id, status: lead.status, receivedAt: lead.receivedAt });
      }
      return reply
        .code(303)
        .header('Location', form.redirectUrl ?? `/f/${form.id}/thanks`)
        .send();
    },
  );

  app.options('/f/:formId', { schema: { hide: true, params: FormParams } }, async (request, reply) => {
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
  });

  app.get(
    '/f/:formId',
    {
      schema: {
        operationId: 'showForm',
        tags: ['Forms'],
        summary: 'The hosted form page (no API key)',
        description:
          'An accessible HTML page with the brand’s name, the lead fields, the consent box and, when the form has a captcha, the provider’s widget (its Content-Security-Policy allows that provider’s script and frames and no other script); it may be framed only by the form’s allowed origins.',
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
      },
    },
    async (request, reply) => {
      const form = await findPublicForm(deps.database, (request.params as { formId: string }).formId);
      if (!form) return sendHtmlError(reply, 404, 'This form does not exist or no longer takes requests.');
      return htmlHeaders(reply, form, true).send(hostedFormPage(form));
    },
  );

  app.get('/f/:formId/thanks', { schema: { hide: true, params: FormParams } }, async (request, reply) => {
    const form = await findPublicForm(deps.database, (request.params as { formId: string }).formId);
    if (!form) return sendHtmlError(reply, 404, 'This form does not exist or no longer takes requests.');
    return htmlHeaders(reply, form).send(thanksPage(form.brandName));
  });
}
