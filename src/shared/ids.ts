// Prefixed identifiers: <prefix>_<26 chars Crockford base32>. Most are time-ordered (a monotonic ULID in lower
// case); customers and addresses are wholly random, so their ids do not tell when someone became a customer.
import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export const ID_PREFIXES = {
  lead: 'wrk',
  brand: 'brd',
  customer: 'cus',
  address: 'adr',
  apiKey: 'key',
  user: 'usr',
  event: 'evt',
  webhookEndpoint: 'whk',
  invite: 'inv',
  passwordReset: 'pwr',
  activity: 'act',
  webhookDelivery: 'whd',
  email: 'eml',
  form: 'frm',
  note: 'not',
  attachment: 'att',
  newLeadSummary: 'nls',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

// Random bytes drawn from a pool filled 4 KiB at a time (as Node's own randomUUID does): one call into the CSPRNG
// per ~150 ids instead of one or two per id (3.6% of a create's CPU, issue 33). A slice is used at once, before
// the pool is filled again.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomSlice(n: number): Buffer {
  if (poolOffset + n > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const slice = pool.subarray(poolOffset, poolOffset + n);
  poolOffset += n;
  return slice;
}

let lastTime = -1;
// 80 random bits kept as five 16-bit limbs so they can be incremented within one millisecond.
const lastRandom = new Uint16Array(5);

function encodeTime(time: number): string {
  let out = '';
  let t = time;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

function encodeRandom(limbs: Uint16Array): string {
  // 80 bits -> 16 base32 characters, 5 bits at a time, most significant first. Character i takes bits
  // [5i, 5i + 5) counted from the top, read from the 32-bit window of its limb and the next.
  let out = '';
  for (let i = 0; i < 16; i++) {
    const bit = i * 5;
    const limb = bit >> 4;
    const window = ((limbs[limb]! << 16) | (limb < 4 ? limbs[limb + 1]! : 0)) >>> 0;
    out += ALPHABET[(window >>> (27 - (bit & 15))) & 31];
  }
  return out;
}

/** Returns the 26-character opaque part; strictly increasing within this process. */
export function ulid(now: number = Date.now()): string {
  if (now <= lastTime) {
    // Same (or earlier, clock went back) millisecond: increment the random part to stay ordered.
    for (let i = 4; i >= 0; i--) {
      const limb = lastRandom[i]!;
      if (limb === 0xffff) {
        lastRandom[i] = 0;
        continue;
      }
      lastRandom[i] = limb + 1;
      break;
    }
    return encodeTime(lastTime) + encodeRandom(lastRandom);
  }
  lastTime = now;
  const bytes = randomSlice(10);
  for (let i = 0; i < 5; i++) lastRandom[i] = (bytes[i * 2]! << 8) | bytes[i * 2 + 1]!;
  // Leave headroom so increments within a millisecond never overflow the top limb.
  lastRandom[0] = lastRandom[0]! & 0x7fff;
  return encodeTime(now) + encodeRandom(lastRandom);
}

export function newId(kind: IdKind, now?: number): string {
  return `${ID_PREFIXES[kind]}_${ulid(now)}`;
}

/** A random id (130 bits): for records whose creation time is nobody's business (customers, addresses). */
export function newRandomId(kind: 'customer' | 'address'): string {
  // 256 is a multiple of 32, so each byte's low five bits are uniform.
  const bytes = randomSlice(26);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return `${ID_PREFIXES[kind]}_${out}`;
}
