// Shown-once values across a post/redirect/get: the post stores, the page after the 303 takes (see domain/flashes.ts).
import type { FastifyRequest } from 'fastify';
import type { Store } from '../../platform/db/store.js';
import { SESSION_COOKIE } from '../../platform/web/cookies.js';
import { putFlash, takeFlash } from '../flashes.js';

/** Keeps `value` for this browser's session until the next page takes it (at most a few minutes). */
export function flash(store: Store, request: FastifyRequest, name: string, value: string): Promise<void> {
  return putFlash(store, request.cookies[SESSION_COOKIE] ?? '', name, value);
}

/** The value a post kept for this session under `name`, once; null on reload, Back, or in another browser. */
export function takeFlashed(store: Store, request: FastifyRequest, name: string): Promise<string | null> {
  return takeFlash(store, request.cookies[SESSION_COOKIE], name);
}
