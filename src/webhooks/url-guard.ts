// SSRF guard for webhook URLs: which schemes and hosts are allowed, and which addresses a URL may resolve to.
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { hasUrlControl, URL_CONTROL_MESSAGE } from '../shared/text.js';

export interface UrlPolicy {
  /** http:// to 127.0.0.1, localhost or ::1 only (local development). */
  allowHttp: boolean;
  /** Addresses that are not public (loopback, private, link-local, ...) are allowed. */
  allowPrivate: boolean;
}

export class UrlRefusedError extends Error {}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const LOCAL_HTTP_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

// Not reachable on the public internet, or not meant to be: a webhook must never be pointed at them.
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", includes the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (and cloud metadata services)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and broadcast
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address (any textual form, including an embedded dotted quad). */
function ipv6Bytes(address: string): number[] {
  let text = address.split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : new Array(8 - headGroups.length - tailGroups.length).fill('0');
  const groups = [...headGroups, ...zeros, ...tailGroups].map((g) => Number.parseInt(g || '0', 16));
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

/**
 * IPv6 forms that carry an IPv4 address a packet ends up at: such an address is judged by the IPv4 it carries, so
 * `[::ffff:7f00:1]` or `[64:ff9b::a9fe:a9fe]` is loopback or the metadata service, and `[64:ff9b::808:808]` (how
 * DNS64 networks write 8.8.8.8) is as public as 8.8.8.8.
 *
 * - `::ffff:0:0/96` IPv4-mapped and `::ffff:0:0:0/96` IPv4-translated (SIIT): the last 32 bits.
 * - `64:ff9b::/96` NAT64 well-known prefix: the last 32 bits.
 * - `64:ff9b:1::/48` NAT64 local-use prefix (RFC 8215): the last 32 bits when it is used as a /96 (bits 48–95 zero).
 *   Shorter translator prefixes put the IPv4 elsewhere (RFC 6052); such forms are refused outright (below).
 * - `2002::/16` 6to4: bits 16–47.
 *
 * Refused whatever they carry, because no webhook can legitimately live there and unwrapping them would only add
 * ways in: `::/96` IPv4-compatible (deprecated by RFC 4291), Teredo `2001::/32` (the client's IPv4 XOR-ed into the
 * last 32 bits; a dead tunnelling scheme) and anything else outside global unicast `2000::/3`.
 */
function embeddedIpv4(b: readonly number[]): string | undefined {
  const allZero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const quad = (at: number) => b.slice(at, at + 4).join('.');
  if (allZero(0, 10) && b[10] === 0xff && b[11] === 0xff) return quad(12); // ::ffff:a.b.c.d
  if (allZero(0, 8) && b[8] === 0xff && b[9] === 0xff && allZero(10, 12)) return quad(12); // ::ffff:0:a.b.c.d
  const nat64 = b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b;
  if (nat64 && allZero(4, 12)) return quad(12); // 64:ff9b::a.b.c.d
  if (nat64 && b[4] === 0x00 && b[5] === 0x01 && allZero(6, 12)) return quad(12); // 64:ff9b:1::a.b.c.d
  if (b[0] === 0x20 && b[1] === 0x02) return quad(2); // 2002:aabb:ccdd::/48
  return undefined;
}

/** False for loopback, private, link-local, unique-local, CGNAT, multicast, unspecified and reserved addresses. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NON_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return false;
  const bytes = ipv6Bytes(address);
  const v4 = embeddedIpv4(bytes);
  if (v4 !== undefined) return !NON_PUBLIC.check(v4, 'ipv4');
  // Only global unicast (2000::/3) is ever public; this also refuses ::/96 and the rest of 64:ff9b::/32.
  if ((bytes[0]! & 0xe0) !== 0x20) return false;
  return !NON_PUBLIC.check(address.split('%')[0]!, 'ipv6');
}

/** Scheme, host and form: everything that can be said about a URL without resolving it. */
export function parseWebhookUrl(raw: string, policy: UrlPolicy): URL {
  // The parser would drop a CR, LF or tab silently: refused as sent instead.
  if (hasUrlControl(raw)) throw new UrlRefusedError(URL_CONTROL_MESSAGE);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefusedError('must be an absolute URL such as https://example.com/webhooks');
  }
  if (url.protocol === 'http:') {
    if (!policy.allowHttp) throw new UrlRefusedError('must use https');
    if (!LOCAL_HTTP_HOSTS.has(url.hostname)) {
      throw new UrlRefusedError('may use http only for 127.0.0.1, localhost or [::1]; use https');
    }
  } else if (url.protocol !== 'https:') {
    throw new UrlRefusedError('must use https');
  }
  if (url.username || url.password) {
    throw new UrlRefusedError('must not contain a user name or password; put a token in the path instead');
  }
  if (url.hash) throw new UrlRefusedError('must not contain a #fragment');
  return url;
}

export const systemResolver: Resolver = async (hostname) => {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const family = isIP(host);
  if (family) return [{ address: host, family: family as 4 | 6 }];
  const found = await dnsLookup(host, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * Resolves the URL's host and returns the address to connect to. Every address the name resolves to must be
 * allowed: a name that mixes public and private addresses is refused, whichever one a connection would pick.
 */
export async function resolveAllowedAddress(
  url: URL,
  policy: UrlPolicy,
  resolve: Resolver = systemResolver,
): Promise<ResolvedAddress> {
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(url.hostname);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new UrlRefusedError(`host ${url.hostname} could not be resolved${code ? ` (${code})` : ''}`);
  }
  if (!addresses.length) throw new UrlRefusedError(`host ${url.hostname} has no addresses`);
  if (!policy.allowPrivate) {
    // The rule that refused, never the address: what an internal name resolves to is not for the caller to learn.
    if (addresses.some((a) => !isPublicAddress(a.address))) {
      throw new UrlRefusedError(
        'resolves to a private address (loopback, private, link-local and similar addresses are refused)',
      );
    }
  }
  return addresses[0]!;
}

/** Checks a URL as an endpoint is saved: its form, then where it resolves to now. Returns it normalised. */
export async function checkWebhookUrl(
  raw: string,
  policy: UrlPolicy,
  resolve: Resolver = systemResolver,
  timeoutMs = 5000,
): Promise<string> {
  const url = parseWebhookUrl(raw, policy);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new UrlRefusedError(`host ${url.hostname} did not resolve within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([resolveAllowedAddress(url, policy, resolve), timeout]);
  } finally {
    clearTimeout(timer);
  }
  return url.href;
}
