// Captchas on website forms: for each provider the field its token comes in, its widget and the page sources the
// widget needs, and the check of a token against the provider's verify API. Turnstile, hCaptcha and reCAPTCHA all
// take `secret`, `response` and `remoteip` form-encoded and answer `{ "success": bool }`. A provider that refuses
// the token, answers something else, fails or does not answer in time is a 422 naming `captcha` that the person
// can retry: never a 500, and nothing is stored.
import type { CaptchaConfig } from '../platform/config.js';
import type { FieldError, FieldErrorText } from '../shared/errors.js';
import type { CaptchaProvider } from './forms.js';

export interface CaptchaProviderInfo {
  /** The form field the provider's widget puts its token in. */
  tokenField: string;
  /** The widget's element class (it reads `data-sitekey`). */
  widgetClass: string;
  /** The provider's script, as its documentation includes it. */
  scriptUrl: string;
  /** Content-Security-Policy sources the widget needs, per directive, as the provider documents them. */
  csp: { script: string[]; frame: string[]; style?: string[]; connect?: string[] };
}

const HCAPTCHA_SOURCES = ['https://hcaptcha.com', 'https://*.hcaptcha.com'];

export const CAPTCHA_PROVIDER_INFO: Record<CaptchaProvider, CaptchaProviderInfo> = {
  turnstile: {
    tokenField: 'cf-turnstile-response',
    widgetClass: 'cf-turnstile',
    scriptUrl: 'https://challenges.cloudflare.com/turnstile/v0/api.js',
    csp: { script: ['https://challenges.cloudflare.com'], frame: ['https://challenges.cloudflare.com'] },
  },
  hcaptcha: {
    tokenField: 'h-captcha-response',
    widgetClass: 'h-captcha',
    scriptUrl: 'https://js.hcaptcha.com/1/api.js',
    csp: {
      script: HCAPTCHA_SOURCES,
      frame: HCAPTCHA_SOURCES,
      style: HCAPTCHA_SOURCES,
      connect: HCAPTCHA_SOURCES,
    },
  },
  recaptcha: {
    tokenField: 'g-recaptcha-response',
    widgetClass: 'g-recaptcha',
    scriptUrl: 'https://www.google.com/recaptcha/api.js',
    csp: {
      script: ['https://www.google.com/recaptcha/', 'https://www.gstatic.com/recaptcha/'],
      frame: ['https://www.google.com/recaptcha/', 'https://recaptcha.google.com/recaptcha/'],
    },
  },
};

/** Every provider's token field: read by the endpoint itself, never kept as an extra field. */
export const CAPTCHA_TOKEN_FIELDS: readonly string[] = Object.values(CAPTCHA_PROVIDER_INFO).map(
  (p) => p.tokenField,
);

/** The API's message after the field's name ("captcha is missing…"). */
export const CAPTCHA_MESSAGES = {
  missing: 'is missing: please confirm you are not a robot',
  refused: 'did not pass: please confirm you are not a robot and send the form again',
  unavailable: 'could not be completed: please try again in a moment',
} as const;

/** What people read, in the form's language ("Robot check is missing: …"). */
export const CAPTCHA_TEXTS: Record<keyof typeof CAPTCHA_MESSAGES, FieldErrorText> = {
  missing: { key: 'publicForm.captcha.missing' },
  refused: { key: 'publicForm.captcha.refused' },
  unavailable: { key: 'publicForm.captcha.unavailable' },
};

export type CaptchaVerdict = { ok: true } | { ok: false; error: FieldError };

export interface CaptchaLog {
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
}

export interface CaptchaCheck {
  provider: CaptchaProvider;
  secret: string | null;
  token: string;
  /** The client's address, passed on as `remoteip`. */
  remoteIp: string;
  /** For the log only. */
  formId: string;
}

const refused: CaptchaVerdict = {
  ok: false,
  error: { field: 'captcha', message: CAPTCHA_MESSAGES.refused, text: CAPTCHA_TEXTS.refused },
};
const unavailable: CaptchaVerdict = {
  ok: false,
  error: { field: 'captcha', message: CAPTCHA_MESSAGES.unavailable, text: CAPTCHA_TEXTS.unavailable },
};

/** A short, secret-free reason for the log: a status, a timeout, or the network error's code. */
function failureReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  return error instanceof Error ? error.message.slice(0, 200) : 'unknown error';
}

/** The provider's error codes (strings only, a few, short) for the log. */
function errorCodes(value: unknown): string[] {
  return Array.isArray(value)
    ? value
        .filter((c): c is string => typeof c === 'string')
        .slice(0, 5)
        .map((c) => c.slice(0, 100))
    : [];
}

/**
 * Asks the provider whether the token is good. Never throws: every failure is a verdict naming `captcha`. Logs
 * failures of the provider at warn and refusals at info, never with the secret or the token.
 */
export async function verifyCaptcha(
  config: CaptchaConfig,
  check: CaptchaCheck,
  log: CaptchaLog,
): Promise<CaptchaVerdict> {
  const { provider, formId } = check;
  const warn = (reason: string) => {
    log.warn(
      { provider, formId, reason },
      'captcha check could not be completed: the post was answered 422 and may be sent again',
    );
    return unavailable;
  };
  if (!check.secret) return warn('the form has a captcha but no secret');
  let status: number;
  let text: string;
  try {
    const response = await fetch(config.verifyUrls[provider], {
      method: 'POST',
      // A URLSearchParams body is sent as application/x-www-form-urlencoded.
      body: new URLSearchParams({ secret: check.secret, response: check.token, remoteip: check.remoteIp }),
      headers: { accept: 'application/json' },
      redirect: 'manual',
      // Covers the answer's body too.
      signal: AbortSignal.timeout(config.timeoutMs),
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    return warn(failureReason(error, config.timeoutMs));
  }
  if (status < 200 || status > 299) return warn(`answered HTTP ${status}`);
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return warn('answered something other than JSON');
  }
  const success =
    typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>).success : undefined;
  if (typeof success !== 'boolean') return warn('answered JSON without a boolean "success"');
  if (!success) {
    log.info(
      { provider, formId, errorCodes: errorCodes((answer as Record<string, unknown>)['error-codes']) },
      'captcha refused by its provider: the post was answered 422',
    );
    return refused;
  }
  return { ok: true };
}
