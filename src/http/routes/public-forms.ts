// The public side of website forms, without an API key: POST /f/{formId} (form-encoded, multipart fields or
// JSON), its CORS preflight, the hosted page GET /f/{formId} and GET /f/{formId}/thanks. Registered as its own
// encapsulated plugin: the form-body and multipart parsers, the HTML error handler and the page headers stay here.
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDeps } from '../../deps.js';
import { ValidationError } from '../../domain/errors.js';
import { findPublicForm, type PublicForm } from '../../domain/forms.js';
import { createLead } from '../../domain/leads/create.js';
import { parseSubmission, typedValues } from '../../forms/submission.js';
import { errorPage, hostedFormPage, thanksPage } from '../../forms/views.js';
import type { RateLimiter } from '../../rate-limit/limiter.js';
import { registerFormBody } from '../body-text.js';
import { sendProblem } from '../problem.js';
import { errorResponses } from '../schemas/common.js';

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

function htmlHeaders(reply: FastifyReply, form: PublicForm | undefined): FastifyReply {
  const ancestors = form?.allowedOrigins.length ? form.allowedOrigins.join(' ') : "'none'";
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
        "style-src 'self'",
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

export default async function publicFormRoutes(
  app: FastifyInstance,
  { deps, limiter }: { deps: RouteDeps; limiter: RateLimiter },
) {
  const postsPerMinute = deps.config.rateLimit.formPostsPerMinute ?? DEFAULT_FORM_POSTS_PER_MINUTE;
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
          'The public endpoint a website form posts to: `application/x-www-form-urlencoded`, `multipart/form-data` (fields only) or `application/json`, with the lead fields of Create a lead (phone also in the national format of the brand’s country). Unknown fields are kept as `extraFields` (at most 20, each at most 1,000 characters), utm_*/referrer/landingPage as `attribution`. The `Origin` (or `Referer`) must be one of the form’s allowed origins or this service’s own, else 403. Form posts are answered with a 303 (success) or HTML pages; JSON posts with 201 `{ id, status, receivedAt }` or problem+json, and CORS headers for allowed origins.',
        security: [],
        params: FormParams,
        consumes: ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'],
        response: {
          201: Type.Object(
            {
              id: Type.String({ description: 'wrk_… of the new lead.' }),
              status: Type.String(),
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
      if (!origin || (!allowedCross && origin !== ownOrigin)) {
        const message = origin
          ? `Posts from ${origin} are not allowed for this form.`
          : 'A post must carry an Origin or Referer header.';
        return json
          ? sendProblem(request, reply, 'forbidden', message)
          : sendHtmlError(reply, 403, message, form);
      }
      if (json && allowedCross) reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin');
      // Per client address and form, counted where the API's limits are (Redis when configured).
      const rate = await limiter.hit(`form:${form.id}:${request.ip}`, postsPerMinute);
      if (!rate.allowed) {
        const retryAfter = Math.max(1, Math.ceil(rate.resetMs / 1000));
        reply.header('Retry-After', String(retryAfter));
        const message = `Too many posts to this form from your address; try again in ${retryAfter} seconds.`;
        return json
          ? sendProblem(request, reply, 'rate_limited', message)
          : sendHtmlError(reply, 429, message, form);
      }

      let submission: ReturnType<typeof parseSubmission>;
      try {
        submission = parseSubmission(form, request.body, json);
      } catch (error) {
        if (!(error instanceof ValidationError) || json) throw error;
        return htmlHeaders(reply, form)
          .code(422)
          .send(hostedFormPage(form, { values: typedValues(request.body), errors: error.errors }));
      }
      // Captcha seam: verify submission.captchaToken with form.captcha / form.captchaSecret here (not yet).
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
          'An accessible HTML page with the brand’s name, the lead fields and the consent box; it may be framed only by the form’s allowed origins.',
        security: [],
        params: FormParams,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      const form = await findPublicForm(deps.database, (request.params as { formId: string }).formId);
      if (!form) return sendHtmlError(reply, 404, 'This form does not exist or no longer takes requests.');
      return htmlHeaders(reply, form).send(hostedFormPage(form));
    },
  );

  app.get('/f/:formId/thanks', { schema: { hide: true, params: FormParams } }, async (request, reply) => {
    const form = await findPublicForm(deps.database, (request.params as { formId: string }).formId);
    if (!form) return sendHtmlError(reply, 404, 'This form does not exist or no longer takes requests.');
    return htmlHeaders(reply, form).send(thanksPage(form.brandName));
  });
}
