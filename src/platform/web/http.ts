// Small helpers the dashboard's routes share: sending pages, redirects, reading form fields, query strings and paths.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SafeHtml } from './html.js';

const PAGE_LANGUAGE = /^<html lang="([a-z]{2})"/;

/** A whole page; its `<html lang>` is sent as Content-Language too. */
export function sendPage(reply: FastifyReply, page: SafeHtml, status = 200): FastifyReply {
  const markup = page.toString();
  const language = PAGE_LANGUAGE.exec(markup)?.[1];
  if (language) reply.header('Content-Language', language);
  return reply.code(status).type('text/html; charset=utf-8').send(`<!doctype html>\n${markup}`);
}

/** 303: after a form post the browser follows with a GET, so reloading never re-submits. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.redirect(location, 303);
}

type Fields = Record<string, unknown>;

/**
 * One field of a form body, query string or path as it was sent; undefined when missing. The dashboard's routes
 * declare no schemas for these (each page answers bad input itself), so they are unknown until read here.
 */
export function field(fields: unknown, name: string): unknown {
  return (fields as Fields | undefined)?.[name];
}

/** One text field of a form body or query string: the first value when repeated, '' when missing. */
export function text(fields: unknown, name: string): string {
  const value = field(fields, name);
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** A field that may be repeated (checkboxes). */
export function list(fields: unknown, name: string): string[] {
  const value = field(fields, name);
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.filter((v): v is string => typeof v === 'string');
}

/** A parameter the route's path declares (`:name`), which the router always sets to a string. */
export function pathParam(request: FastifyRequest, name: string): string {
  const value = field(request.params, name);
  if (typeof value !== 'string') throw new Error(`the route's path declares no :${name}`);
  return value;
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

/** The scheme and host the browser used, as the origin of absolute links (behind TRUST_PROXY, the proxy's). */
export function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
