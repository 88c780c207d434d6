// The session cookie: set on sign-in (always a fresh token), read on every dashboard request, cleared on sign-out.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../../leads/index.js';
import type { Store } from '../../platform/db/store.js';
import { cookieOptions, FORM_COOKIE, SESSION_COOKIE } from '../../platform/web/cookies.js';
import { createSession, endSession, findSession, SESSION_MAX_MS, type SessionUser } from '../sessions.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Who may use a dashboard route: anyone (public forms), any signed-in user (leads, work items, customers), or
     * the brand's admins only (API keys, webhooks, website forms, people, settings): a member gets a 403 page.
     */
    page?: 'public' | 'user' | 'admin';
  }
  interface FastifyRequest {
    /** The signed-in dashboard user, resolved from the session cookie; null when signed out. */
    signedIn: SessionUser | null;
  }
}

/** The route options of every dashboard page: kept out of the API document (schema) and who may use it (config). */
export const hidden = { hide: true };
export const publicPage = { page: 'public' as const };
export const userPage = { page: 'user' as const };
export const adminPage = { page: 'admin' as const };

export async function resolveSession(store: Store, request: FastifyRequest): Promise<void> {
  request.signedIn = await findSession(store, request.cookies[SESSION_COOKIE]);
}

/** Signs a user in: any session the browser still carries ends, and a new token is issued (no fixation). */
export async function startSession(
  store: Store,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
): Promise<void> {
  await endSession(store, request.cookies[SESSION_COOKIE]);
  const session = await createSession(store, userId);
  reply.setCookie(SESSION_COOKIE, session.token, cookieOptions(request, Math.floor(SESSION_MAX_MS / 1000)));
  reply.clearCookie(FORM_COOKIE, cookieOptions(request));
}

export async function stopSession(store: Store, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await endSession(store, request.cookies[SESSION_COOKIE]);
  reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
}

/** The signed-in user of a route that requires one (the access hook has already redirected everyone else). */
export function userOf(request: FastifyRequest): SessionUser {
  if (!request.signedIn)
    throw new Error('route is not marked page: user/admin, or the access hook did not run');
  return request.signedIn;
}

/**
 * The signed-in person as the actor of what they do (history entries, notes, typed-in leads): their display name,
 * or their email while they have none.
 */
export function userActor(user: Pick<SessionUser, 'userId' | 'email'> & { name?: string | null }): Actor {
  return { type: 'user', id: user.userId, name: user.name || user.email };
}
