// What an API key may do (its scopes) and what a request learns from its key: the terms the HTTP platform
// checks routes against, kept apart from how keys are made and stored (accounts/api-keys.ts).
export const SCOPES = ['leads:read', 'leads:write', 'work-items:read', 'customers:read', 'full'] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'leads:read': 'List leads and read single leads (GET /v1/leads, GET /v1/leads/{id}).',
  'leads:write': 'Create leads (POST /v1/leads).',
  'work-items:read':
    'List work items and read single work items (GET /v1/work-items, GET /v1/work-items/{id}).',
  'customers:read': 'List customers and read single customers (GET /v1/customers, GET /v1/customers/{id}).',
  full: 'Everything, including addresses, state changes, events and webhooks.',
};

/** What a request learns from its key. */
export interface Principal {
  keyId: string;
  keyName: string;
  brandId: string;
  scopes: readonly Scope[];
  readsPerMinute: number | null;
  writesPerMinute: number | null;
}

/** Resolves a presented key to its principal, or the reason it is refused (accounts/api-keys.ts implements it). */
export interface ApiKeyLookup {
  resolve(key: string, now?: number): Promise<Principal | 'unknown' | 'revoked' | 'expired'>;
  /** Drops cached entries so a revocation made by this process takes effect at once. */
  invalidate(): void;
}

export function hasScope(scopes: readonly Scope[], needed: Scope): boolean {
  return scopes.includes('full') || scopes.includes(needed);
}
