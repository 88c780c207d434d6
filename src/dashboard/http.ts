// Small helpers the dashboard's routes share: sending pages, redirects, reading form fields and query strings.
import type { FastifyReply } from 'fastify';
import type { SafeHtml } from './html.js';

export function sendPage(reply: FastifyReply, page: SafeHtml, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(`<!doctype html>\n${page}`);
}

/** 303: after a form post the browser follows with a GET, so reloading never re-submits. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.redirect(location, 303);
}

type Fields = Record<string, unknown>;

/** One text field of a form body or query string: the first value when repeated, '' when missing. */
export function text(fields: unknown, name: string): string {
  const value = (fields as Fields | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** A field that may be repeated (checkboxes). */
export function list(fields: unknown, name: string): string[] {
  const value = (fields as Fields | undefined)?.[name];
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.filter((v): v is string => typeof v === 'string');
}

/** A path with a query string built from the non-empty parameters. */
export function withQuery(path: string, params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}

/** Only local dashboard paths may be a redirect target after sign-in (no open redirect). */
export function safeNext(value: string): string | undefined {
  return /^\/dashboard(\/[A-Za-z0-9_\-/]*)?(\?[A-Za-z0-9_\-=&%.+]*)?$/.test(value) && !value.includes('//')
    ? value
    : undefined;
}
