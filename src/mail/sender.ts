// Sends one mail over SMTP with nodemailer: the server, port, TLS and credentials come from SMTP_URL.
import { createRequire } from 'node:module';
import type nodemailer from 'nodemailer';
import type { MailConfig } from '../platform/config.js';

export interface OutgoingMail {
  to: string;
  /** The display name of the From (the brand's sender name); null or absent: MAIL_FROM as it is. */
  senderName?: string | null;
  subject: string;
  text: string;
  html: string;
  /** The mail's language (nl, en): sent as its Content-Language. */
  language?: string | null;
  /** Sent as its Reply-To when set. */
  replyTo?: string | null;
  /** An iCalendar invitation: a text/calendar alternative with its method, and the same as an invite.ics file. */
  calendar?: { method: 'REQUEST' | 'CANCEL'; content: string } | undefined;
}

export interface SendResult {
  ok: boolean;
  /** Why it failed: the server's answer or the connection error (never the message or the credentials). */
  error: string | null;
  /** The server refused this message for good (a 5xx answer to the envelope or the data): retrying cannot help. */
  permanent: boolean;
}

export interface MailSender {
  send(mail: OutgoingMail, signal: AbortSignal): Promise<SendResult>;
  close(): void;
}

/**
 * The From of a mail: MAIL_FROM's address with the brand's sender name as its display name, or MAIL_FROM as it is
 * when there is no name. Nodemailer quotes and encodes the name, so one with commas, quotes or accents stays whole.
 */
export function fromHeader(
  mailFrom: string,
  senderName?: string | null,
): string | { name: string; address: string } {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a header holds no control character
  const name = senderName?.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  if (!name) return mailFrom;
  const address = /<([^<>]*)>\s*$/.exec(mailFrom)?.[1] ?? mailFrom;
  return { name, address: address.trim() };
}

/** The From as people read it: "Jansen Installaties <leads@example.com>" (the dashboard shows it). */
export function fromText(mailFrom: string, senderName?: string | null): string {
  const from = fromHeader(mailFrom, senderName);
  return typeof from === 'string' ? from : `${from.name} <${from.address}>`;
}

/** What nodemailer puts on its errors (see NodemailerError in its types). */
interface SmtpError extends Error {
  code?: string;
  response?: string;
  responseCode?: number;
  permanent?: boolean;
}

const MAX_ERROR_LENGTH = 500;

/** The reason to record and log: the SMTP answer when there was one, else the error's message. */
export function describeSendError(error: unknown): string {
  const e = error as SmtpError;
  const reason = e?.response?.trim() || (e instanceof Error ? e.message : String(error));
  const text = e?.code && !reason.includes(e.code) ? `${e.code}: ${reason}` : reason;
  return text.replace(/\s+/g, ' ').slice(0, MAX_ERROR_LENGTH);
}

/**
 * An SMTP sender: one connection per mail (mails are few; a fresh connection also recovers from a server that
 * went away), every wait bounded by the configured timeout.
 */
export function smtpSender(config: MailConfig): MailSender {
  // Loaded with the first sender: a server without email never needs it.
  const mailer = createRequire(import.meta.url)('nodemailer') as typeof nodemailer;
  const transport = mailer.createTransport({
    url: config.smtpUrl,
    connectionTimeout: config.timeoutMs,
    greetingTimeout: config.timeoutMs,
    socketTimeout: config.timeoutMs,
    dnsTimeout: config.timeoutMs,
  });
  return {
    async send(mail, signal) {
      try {
        const { language, replyTo, senderName, calendar, ...message } = mail;
        const headers = language ? { 'Content-Language': language } : {};
        // Calendar apps take the text/calendar part with its method (Gmail, Outlook, Apple Mail); the attachment
        // is for those that only open files.
        const invitation = calendar
          ? {
              icalEvent: { method: calendar.method, filename: 'invite.ics', content: calendar.content },
              attachments: [
                {
                  filename: 'invite.ics',
                  content: calendar.content,
                  contentType: `application/ics; method=${calendar.method}`,
                },
              ],
            }
          : {};
        await transport.sendMail({
          from: fromHeader(config.from, senderName),
          ...message,
          ...(replyTo ? { replyTo } : {}),
          ...invitation,
          headers,
          signal,
        });
        return { ok: true, error: null, permanent: false };
      } catch (error) {
        const e = error as SmtpError;
        // A rejected recipient or message is final; a refused login, a lost connection or a 4xx is not.
        const permanent = e?.permanent === true && (e.code === 'EENVELOPE' || e.code === 'EMESSAGE');
        return { ok: false, error: describeSendError(error), permanent };
      }
    },
    close() {
      transport.close();
    },
  };
}
