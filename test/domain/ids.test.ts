// Identifiers: the format, strict order within a process (a ULID per millisecond, incremented within one), and
// random parts that never repeat across the random pool's refills (4 KiB at a time: ~150 ids each).
import { describe, expect, it } from 'vitest';
import { newId, newRandomId, ulid } from '../../src/shared/ids.js';

const BASE32 = /^[0-9a-hjkmnp-tv-z]{26}$/;

describe('ids', () => {
  it('are prefixed Crockford base32, 26 characters after the prefix', () => {
    expect(newId('lead')).toMatch(/^wrk_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(newRandomId('customer')).toMatch(/^cus_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(newRandomId('address')).toMatch(/^adr_[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it('are strictly increasing within one millisecond and across them', () => {
    const now = Date.now() + 10_000;
    const ids = [ulid(now), ulid(now), ulid(now), ulid(now + 1), ulid(now + 1), ulid(now + 5)];
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('never repeat a random part across many refills of the pool, and use the whole alphabet', () => {
    const random = Array.from({ length: 20_000 }, () => newRandomId('customer').slice(4));
    expect(new Set(random).size).toBe(random.length);
    for (const id of random.slice(0, 100)) expect(id).toMatch(BASE32);
    const seen = new Set(random.join(''));
    expect(seen.size).toBe(32);
    // New milliseconds draw new random parts: no two ids of different milliseconds share theirs.
    const start = Date.now() + 20_000;
    const parts = Array.from({ length: 5_000 }, (_, i) => ulid(start + i).slice(10));
    expect(new Set(parts).size).toBe(parts.length);
  });
});
