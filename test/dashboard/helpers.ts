// A tiny browser for app.inject(): keeps cookies, remembers the last form token, posts forms.
import { randomBytes, scryptSync } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { createApiKey } from '../../src/accounts/api-keys.js';
import { createBrand } from '../../src/accounts/brands.js';
import type { User } from '../../src/accounts/users.js';
import type { App } from '../../src/app.js';
import { newId } from '../../src/shared/ids.js';

export const PASSWORD = 'correct horse battery';

export class Browser {
  readonly cookies = new Map<string, string>();
  /** The _csrf value of the last HTML page that had one. */
  csrf = '';
  lastPage = '';

  constructor(
    private readonly app: App,
    private readonly options: { headers?: Record<string, string>; remoteAddress?: string } = {},
  ) {}

  private cookieHeader(): Record<string, string> {
    if (!this.cookies.size) return {};
    return { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  private remember(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of res.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      const cleared =
        cookie.value === '' ||
        cookie.maxAge === 0 ||
        (cookie.expires && cookie.expires.getTime() <= Date.now());
      if (cleared) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    if (String(res.headers['content-type'] ?? '').startsWith('text/html')) {
      this.lastPage = res.body;
      const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
      if (token) this.csrf = token;
    }
    return res;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const res = await this.app.inject({
      method: 'GET',
      url,
      headers: { ...this.options.headers, ...this.cookieHeader(), ...headers },
      ...(this.options.remoteAddress ? { remoteAddress: this.options.remoteAddress } : {}),
    });
    return this.remember(res);
  }

  /** Posts a form; adds the remembered _csrf unless the fields set one (or set it to undefined to leave it out). */
  async post(
    url: string,
    fields: Record<string, string | string[] | undefined> = {},
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    const all = '_csrf' in fields ? fields : { _csrf: this.csrf, ...fields };
    for (const [name, value] of Object.entries(all)) {
      if (value === undefined) continue;
      for (const v of [value].flat()) body.append(name, v);
    }
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: {
        ...this.options.headers,
        ...this.cookieHeader(),
        'content-type': 'application/x-www-form-urlencoded',
        ...headers,
      },
      payload: body.toString(),
      ...(this.options.remoteAddress ? { remoteAddress: this.options.remoteAddress } : {}),
    });
    return this.remember(res);
  }
}

const cheapHashes = new Map<string, string>();

/**
 * A scrypt hash in the stored format with a low cost (N=1024). verifyPassword reads the cost from the hash,
 * so signing in runs the real code while the suite stays fast on a shared machine; users created by the
 * application (setup, invitations, the users page) always get the full cost.
 */
function cheapHash(password: string): string {
  let hash = cheapHashes.get(password);
  if (!hash) {
    const salt = randomBytes(16);
    const key = scryptSync(password, salt, 32, { N: 1024, r: 8, p: 1 });
    hash = `scrypt$1024$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
    cheapHashes.set(password, hash);
  }
  return hash;
}

/** Adds a user directly (a fixture, not the users page). */
export async function addUser(
  app: App,
  brandId: string,
  email: string,
  role: 'owner' | 'member' = 'owner',
  password = PASSWORD,
): Promise<User> {
  const row = {
    id: newId('user'),
    brand_id: brandId,
    email,
    email_normalized: email.toLowerCase(),
    password_hash: cheapHash(password),
    role,
    created_at: Date.now(),
    disabled_at: null,
    new_lead_mail: role === 'owner' ? 'every' : 'none',
    language: 'en',
  };
  await app.deps.database.db.insertInto('users').values(row).execute();
  return {
    id: row.id,
    brandId,
    email,
    name: null,
    role,
    language: 'en' as const,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/** A browser signed in as the given user (who must exist). */
export async function signedIn(
  app: App,
  email: string,
  password = PASSWORD,
  options: ConstructorParameters<typeof Browser>[1] = {},
): Promise<Browser> {
  const browser = new Browser(app, options);
  await browser.get('/sign-in');
  const res = await browser.post('/sign-in', { email, password });
  if (res.statusCode !== 303) throw new Error(`sign-in failed: ${res.statusCode}`);
  return browser;
}

/** The text a reader sees: tags removed, entities decoded, whitespace collapsed. */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Acme Plumbing (NL) with a `full` API key and an owner (owner@acme.example), who is mailed each new lead. */
export async function brandWithKeyAndOwner(app: App): Promise<{ brandId: string; key: string }> {
  const brandId = (
    await createBrand(app.deps.database, { language: 'en', name: 'Acme Plumbing', country: 'NL' })
  ).id;
  const { key } = await createApiKey(app.deps.database, { brandId, name: 'site', scopes: ['full'] });
  await addUser(app, brandId, 'owner@acme.example', 'owner');
  return { brandId, key };
}

/** A complete new-lead form as the office fills it in (no email unless given). */
export function phonedInLead(fields: Record<string, string> = {}): Record<string, string> {
  return {
    source: 'phone',
    customerName: 'Sanne de Vries',
    phone: '',
    email: '',
    title: 'Boiler makes noise',
    priority: 'high',
    street: 'Oudegracht',
    streetNumber: '12',
    postalCode: '3511 AB',
    city: 'Utrecht',
    country: 'NL',
    ...fields,
  };
}
