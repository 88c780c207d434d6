// A post to a website form, from the form's id to its outcome: the form looked up, the post's origin checked, the
// per-address rate limit counted, the fields read (honeypot, captcha token, consent, extra fields, attribution),
// the captcha verified, the form's hourly budget spent (only now, so invalid posts cannot spend it) and the lead
// created. The route (api/public.ts) only adapts HTTP: it reads the request into a FormPost and answers each
// outcome as a redirect, a page or JSON.
import type { ReceivedFile } from '../attachments/upload.js';
import { createLead } from '../leads/create.js';
import type { CaptchaConfig } from '../platform/config.js';
import type { Store } from '../platform/db/store.js';
import type { RateLimiter } from '../platform/rate-limit/limiter.js';
import { type FieldError, type FieldErrorText, ValidationError } from '../shared/errors.js';
import { type CaptchaLog, verifyCaptcha } from './captcha.js';
import { findPublicForm, type PublicForm } from './forms.js';
import { NO_ORIGIN, recordRefusal } from './refusals.js';
import { parseSubmission } from './submission.js';

export const DEFAULT_FORM_POSTS_PER_MINUTE = 10;
export const DEFAULT_FORM_POSTS_PER_HOUR = 300;
const HOUR_MS = 60 * 60 * 1000;

/** What a form post needs of the service: where leads go, the rate limiter and its limits, the captcha settings. */
export interface SubmitDeps {
  database: Store;
  limiter: RateLimiter;
  postsPerMinute: number;
  postsPerHour: number;
  captcha: CaptchaConfig;
  /** ATTACHMENTS_MAX_FILES_PER_LEAD: the files one lead may have. */
  maxFilesPerLead: number;
}

/** A post as the request carried it. */
export interface FormPost {
  formId: string;
  /** The parsed body: form-encoded, multipart key-values or JSON. */
  body: unknown;
  /** Sent as JSON (an API client), not as a form (a browser). */
  json: boolean;
  /** The Origin, else the Referer's origin; undefined when neither (or "null"). */
  origin: string | undefined;
  /**
   * The origins of this service's own pages (the hosted form): PUBLIC_URL's, and the one the request was served
   * by (behind a trusted proxy, or without PUBLIC_URL set), since a browser's Origin always names the page's host.
   */
  ownOrigins: readonly string[];
  /** The client's address: counted by the per-address limit and passed on to the captcha provider. */
  ip: string;
  log: CaptchaLog;
  /** The files of a multipart post, their bytes already stored (the route removes them unless it is created). */
  files?: readonly ReceivedFile[];
  /** A file the upload refused (its type, size, count, name): reported with the fields' problems. */
  fileErrors?: readonly FieldError[];
}

export interface CreatedLead {
  id: string;
  status: string;
  receivedAt: string;
}

/**
 * How a post ended. Past the origin check every outcome names the form and `crossOrigin`, the post's origin when
 * it is one of the form's allowed origins (a JSON answer gets CORS headers for it).
 */
export type SubmitResult =
  | { outcome: 'not_found' }
  | {
      outcome: 'forbidden';
      form: PublicForm;
      /** The origin it came from as the log names it: the post's, or "(none)". */
      origin: string;
      message: string;
      text: FieldErrorText;
    }
  | {
      outcome: 'rate_limited';
      form: PublicForm;
      crossOrigin: string | undefined;
      retryAfterSeconds: number;
      message: string;
      text: FieldErrorText;
    }
  | { outcome: 'invalid'; form: PublicForm; crossOrigin: string | undefined; error: ValidationError }
  | { outcome: 'created'; form: PublicForm; crossOrigin: string | undefined; lead: CreatedLead };

/** "45 seconds", "12 minutes": how long until a limit's window resets (the API's detail is English). */
function waitText(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}

/** The same wait as values of a message for people: `{unit, select, …}` with `{count, plural, …}`. */
function waitValues(seconds: number): { unit: string; count: number } {
  return seconds < 90
    ? { unit: 'seconds', count: seconds }
    : { unit: 'minutes', count: Math.ceil(seconds / 60) };
}

/**
 * The refusal of a post from an origin the form does not allow (the API's English, and the page's message);
 * undefined when the origin may post.
 */
function originRefusal(
  form: PublicForm,
  post: Pick<FormPost, 'origin' | 'ownOrigins'>,
): { message: string; text: FieldErrorText } | undefined {
  const { origin } = post;
  if (!origin) {
    return {
      message: 'A post must carry an Origin or Referer header.',
      text: { key: 'publicForm.error.forbidden.noOrigin' },
    };
  }
  if (form.allowedOrigins.includes(origin) || post.ownOrigins.includes(origin)) return undefined;
  return {
    message: `Posts from ${origin} are not allowed for this form.`,
    text: { key: 'publicForm.error.forbidden.origin', values: { origin } },
  };
}

type Refusal = { retryAfterSeconds: number; message: string; text: FieldErrorText };

const refused = (resetMs: number, key: FieldErrorText['key'], message: (wait: string) => string): Refusal => {
  const retryAfterSeconds = Math.max(1, Math.ceil(resetMs / 1000));
  return {
    retryAfterSeconds,
    message: message(waitText(retryAfterSeconds)),
    text: { key, values: waitValues(retryAfterSeconds) },
  };
};

const hourRefusal = (resetMs: number) =>
  refused(
    resetMs,
    'publicForm.error.rateLimited.perForm',
    (wait) => `This form has taken as many posts as it can this hour; try again in ${wait}.`,
  );

/**
 * The hour budgets of a form (counted where the API's limits are: Redis when configured): real posts, and spam (a
 * filled honeypot) apart, so a robot filling the honeypot can never spend what the form keeps for people.
 */
const hourBucket = (form: PublicForm, spam: boolean) => `${spam ? 'form-spam-hour' : 'form-hour'}:${form.id}`;

/**
 * Before the body is read: the per-address limit counts every post (valid or not, with or without a captcha);
 * the form's hour budget is only looked at, so a form whose hour is full refuses before any file is streamed. A
 * post over the minute limit uses none of the hour's.
 */
async function admissionLimit(deps: SubmitDeps, form: PublicForm, ip: string): Promise<Refusal | undefined> {
  const perAddress = await deps.limiter.hit(`form:${form.id}:${ip}`, deps.postsPerMinute);
  if (!perAddress.allowed) {
    return refused(
      perAddress.resetMs,
      'publicForm.error.rateLimited.perAddress',
      (wait) => `Too many posts to this form from your address; try again in ${wait}.`,
    );
  }
  const hour = await deps.limiter.peek(hourBucket(form, false), deps.postsPerHour, undefined, HOUR_MS);
  return hour.allowed ? undefined : hourRefusal(hour.resetMs);
}

/**
 * The hour budget, spent only by a post that passed validation and the captcha (a stranger's invalid posts, or
 * posts without a good token, cost nothing of it). Spam has a budget of its own of the same size.
 */
async function spendHour(deps: SubmitDeps, form: PublicForm, spam: boolean): Promise<Refusal | undefined> {
  const hour = await deps.limiter.hit(hourBucket(form, spam), deps.postsPerHour, undefined, HOUR_MS);
  return hour.allowed ? undefined : hourRefusal(hour.resetMs);
}

/** Stores the post as a lead of the form's brand, source 'form' (spam too: it is kept, marked as spam). */
async function storeLead(
  deps: SubmitDeps,
  form: PublicForm,
  submission: ReturnType<typeof parseSubmission>,
  files: readonly ReceivedFile[],
): Promise<CreatedLead> {
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
      files: { received: files, source: 'form', maxPerLead: deps.maxFilesPerLead },
    },
    submission.input,
  );
  return { id: lead.id, status: lead.status, receivedAt: lead.receivedAt };
}

/** What is known of a post before its body is read: enough to look up the form and to admit the post or not. */
export type PostHeaders = Pick<FormPost, 'formId' | 'origin' | 'ownOrigins' | 'ip'>;

/** A post the form takes: its origin allowed and within the limits; its body may now be read. */
export interface Admitted {
  outcome: 'admitted';
  form: PublicForm;
  crossOrigin: string | undefined;
}

/**
 * The checks that need no body: the form exists and takes posts, the origin may post, the limits allow one more.
 * The route runs them before it reads a multipart body, so a refused post's files are never streamed to storage.
 */
export async function admitPost(
  deps: SubmitDeps,
  post: PostHeaders,
): Promise<Admitted | Extract<SubmitResult, { outcome: 'not_found' | 'forbidden' | 'rate_limited' }>> {
  const form = await findPublicForm(deps.database, post.formId);
  if (!form) return { outcome: 'not_found' };
  const refusal = originRefusal(form, post);
  if (refusal) {
    // Counted for the business (Settings shows the refused posts of the last 30 days).
    await recordRefusal(deps.database, form.id, post.origin);
    return { outcome: 'forbidden', form, origin: post.origin ?? NO_ORIGIN, ...refusal };
  }
  const crossOrigin =
    post.origin !== undefined && form.allowedOrigins.includes(post.origin) ? post.origin : undefined;
  const limited = await admissionLimit(deps, form, post.ip);
  if (limited) return { outcome: 'rate_limited', form, crossOrigin, ...limited };
  return { outcome: 'admitted', form, crossOrigin };
}

/**
 * Takes an admitted post's body: the fields read, the captcha verified and the lead created. A body that is not
 * an object, or errors other than the fields' (a database that does not answer), are thrown; every other ending is
 * a SubmitResult. A filled honeypot is stored as spam and answered like success, without a captcha check.
 */
export async function completePost(
  deps: SubmitDeps,
  admitted: Admitted,
  post: FormPost,
): Promise<SubmitResult> {
  const { form, crossOrigin } = admitted;
  const fileErrors = post.fileErrors ?? [];
  let submission: ReturnType<typeof parseSubmission>;
  try {
    submission = parseSubmission(form, post.body, post.json);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    // As it is: for JSON its message counts the fields it does not list.
    const all = fileErrors.length ? new ValidationError([...error.errors, ...fileErrors]) : error;
    return { outcome: 'invalid', form, crossOrigin, error: all };
  }
  if (fileErrors.length) {
    return { outcome: 'invalid', form, crossOrigin, error: new ValidationError([...fileErrors]) };
  }
  // Only a post whose fields are valid costs a call to the captcha provider; spam (its token is null) none.
  if (form.captcha && submission.captchaToken !== null) {
    const verdict = await verifyCaptcha(
      deps.captcha,
      {
        provider: form.captcha.provider,
        secret: form.captchaSecret,
        token: submission.captchaToken,
        remoteIp: post.ip,
        formId: form.id,
      },
      post.log,
    );
    if (!verdict.ok)
      return { outcome: 'invalid', form, crossOrigin, error: new ValidationError([verdict.error]) };
  }
  const overHour = await spendHour(deps, form, submission.spam);
  if (overHour) return { outcome: 'rate_limited', form, crossOrigin, ...overHour };
  const lead = await storeLead(deps, form, submission, post.files ?? []);
  return { outcome: 'created', form, crossOrigin, lead };
}
