// The secrets of the calendar feeds (contract "Calendars and visit notices"): each user's feed of the visits
// assigned to them and, for admins, a feed of all the brand's visits, GET /calendar/{token}.ics. A token is 256
// random bits, made the first time its address is shown, replaced by "New link" (the old one then opens nothing).
// Kept in clear: the feed is read-only and the account page shows its address again each time, which a hash
// would not allow (docs/calendar.md, "The feed's token").
import { randomBytes } from 'node:crypto';
import type { Store } from '../platform/db/store.js';
import { NotFoundError } from '../shared/errors.js';
import {
  type CalendarTokenColumn,
  selectCalendarTokenOwner,
  selectCalendarTokens,
  selectVisitNoticesOn,
  updateBrand,
  updateCalendarToken,
} from './queries.js';
import { isAdmin, type Role } from './users.js';

/** Whose visits a feed holds: the user's own, or (admins) all of the brand's. */
export type FeedScope = 'mine' | 'brand';

const COLUMN: Record<FeedScope, CalendarTokenColumn> = {
  mine: 'calendar_token',
  brand: 'brand_calendar_token',
};

/** A feed's two addresses: to open or download (https), and to subscribe in a calendar app (webcal). */
export interface FeedLinks {
  url: string;
  webcal: string;
}

/** 256 random bits, URL-safe. */
function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function feedLinks(publicUrl: string, token: string): FeedLinks {
  const url = `${publicUrl.replace(/\/+$/, '')}/calendar/${token}.ics`;
  return { url, webcal: url.replace(/^https?:\/\//, 'webcal://') };
}

/**
 * The addresses of the user's feeds: `mine`, and `brand` for an admin. A feed without a token yet gets one now;
 * `rotate` replaces that of `rotate`'s scope, so its old address answers 404 from then on.
 */
export async function calendarFeeds(
  store: Store,
  userId: string,
  publicUrl: string,
  rotate?: FeedScope,
): Promise<{ mine: FeedLinks; brand?: FeedLinks }> {
  const user = await selectCalendarTokens(store, userId);
  if (!user) throw new NotFoundError(`No user with id ${userId}`);
  const scopes: FeedScope[] = isAdmin({ role: user.role as Role }) ? ['mine', 'brand'] : ['mine'];
  if (rotate && !scopes.includes(rotate)) throw new NotFoundError('Only admins have a feed of the brand');
  const tokens: Partial<Record<FeedScope, string>> = {};
  for (const scope of scopes) {
    const current = user[COLUMN[scope]];
    if (current && rotate !== scope) {
      tokens[scope] = current;
      continue;
    }
    const token = newToken();
    // A first token is set only if none was meanwhile (two tabs): the one that was set wins.
    const set = await store.write((tx) => updateCalendarToken(tx, userId, COLUMN[scope], token, !current));
    tokens[scope] = set ? token : ((await selectCalendarTokens(store, userId))?.[COLUMN[scope]] ?? token);
  }
  return {
    mine: feedLinks(publicUrl, tokens.mine!),
    ...(tokens.brand ? { brand: feedLinks(publicUrl, tokens.brand) } : {}),
  };
}

/** Whose feed a token opens: an active user's, and which; a brand feed only while its owner is an admin. */
export async function findCalendarFeed(
  store: Store,
  token: string,
): Promise<{ userId: string; brandId: string; scope: FeedScope } | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const owner = await selectCalendarTokenOwner(store, token);
  if (!owner) return undefined;
  const scope: FeedScope = owner.column === 'calendar_token' ? 'mine' : 'brand';
  if (scope === 'brand' && !isAdmin({ role: owner.role as Role })) return undefined;
  return { userId: owner.id, brandId: owner.brand_id, scope };
}

/** Settings > Brand: whether customers get visit notices (on by default; only sent when email is on). */
export function visitNoticesOn(store: Store, brandId: string): Promise<boolean> {
  return selectVisitNoticesOn(store, brandId);
}

export async function setVisitNotices(store: Store, brandId: string, on: boolean): Promise<void> {
  await store.write((tx) => updateBrand(tx, brandId, { visit_notices: on ? 1 : 0 }));
}
