// Hostile search and filter parameters (issue 29): generated `q`, `email`, `phone` and id filters on every list and
// export that searches, on both databases. Words by the dozen, a word repeated, FTS5 and LIKE syntax, quotes, NUL
// and other control characters, phone-like and postal-code-like text, 200 and 201 characters, binary strings.
// Invariants: never a 5xx; a 200 is a page of the brand's own items (or its CSV); every error is problem+json, and
// a 422 on `q` says why.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, dialects, quickRuns, type TestContext } from '../helpers.js';

const RUNS = quickRuns(600);

const LISTS = ['/v1/leads', '/v1/work-items', '/v1/customers'];
const EXPORTS = ['/v1/exports/leads.csv', '/v1/exports/work-items.csv'];

/** Percent-encodes the UTF-8 bytes, so any string (lone surrogates included) can travel in a URL. */
const pct = (s: string) =>
  [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

const word = fc.oneof(
  fc.constantFrom('Dupont', 'émile', 'ZWALUW', 'Keizersgracht', '1015', 'CJ', 'de', 'a', 'bakker', 'Vries'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((s) => !/\s/.test(s)),
  fc.constantFrom(
    '"',
    '""',
    'NEAR(a b)',
    'a*',
    'OR',
    'AND',
    'NOT',
    '-x',
    'body:x',
    '^a',
    '%',
    '_',
    '\\',
    "'",
    '(',
    ')',
  ),
);

function searchValue(): fc.Arbitrary<string> {
  return fc.oneof(
    // 1 to 40 words, some repeated.
    fc.array(word, { minLength: 1, maxLength: 40 }).map((ws) => ws.join(' ')),
    fc.tuple(word, fc.integer({ min: 2, max: 60 })).map(([w, n]) => Array(n).fill(w).join(' ')),
    fc.constantFrom('06 1234 5678', '+31 6 1234 5678', '(020) 555-0101', '0031 6', '1015 CJ', '1015CJ'),
    fc.constantFrom('a'.repeat(200), 'a'.repeat(201), `${'ab '.repeat(66)}ab`, 'ééé'.repeat(67)),
    fc.constantFrom('ab\u0000cd', '\u0000', 'ab\u0001', 'line\nbreak', 'tab\there', '\u007f', 'x\u0085y'),
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.string({ unit: 'grapheme', maxLength: 80 }),
  );
}

function query(): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 12, arbitrary: fc.constant('q') },
    { weight: 1, arbitrary: fc.constantFrom('email', 'phone', 'customerId', 'assigneeId', 'status', 'q[]') },
  );
  const pair = fc.tuple(name, searchValue()).map(([n, v]) => `${n}=${pct(v)}`);
  return fc
    .array(pair, { minLength: 1, maxLength: 2 })
    .map((pairs) => pairs.join('&'))
    .filter((q) => q.split('&').filter((p) => p.startsWith('q=')).length <= 1);
}

describe.each(dialects())('hostile search parameters on %s', (dialect) => {
  let ctx: TestContext;
  let ownIds: Set<string>;
  beforeAll(async () => {
    ctx = await createTestContext(dialect);
    const own = [
      await ctx.createLead({ customerName: 'Émile Dupont', city: 'Amsterdam', title: 'Zwaluw boiler' }),
      await ctx.createLead({ customerName: 'Joost Bakker', postalCode: '1015 CJ', title: 'Gutter' }),
    ];
    ownIds = new Set<string>();
    for (const lead of own) {
      const read = (await ctx.api.get(`/v1/leads/${lead.id}`)).json();
      ownIds.add(read.id).add(read.customer.id);
    }
    // The other brand holds the same words: never listed for this brand.
    await ctx.createLead({ customerName: 'Émile Dupont', title: 'Zwaluw boiler' }, ctx.keys.other);
  });
  afterAll(async () => ctx?.close());

  it('answers every generated search with a page of its own brand, or a 4xx problem, never a 5xx', async () => {
    let searched = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...LISTS, ...EXPORTS), query(), async (path, q) => {
        const res = await ctx.app.inject({
          method: 'GET',
          url: `${path}?${q}`,
          headers: { 'x-api-key': ctx.keys.full },
        });
        const context = `GET ${path}?${q} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
        expect(res.statusCode, context).toBeLessThan(500);
        if (res.statusCode >= 400) {
          expect([400, 404, 414, 422], context).toContain(res.statusCode);
          expect(res.headers['content-type'], context).toMatch(/^application\/problem\+json/);
          const problem = res.json();
          expect(problem.status, context).toBe(res.statusCode);
          if (res.statusCode === 422) {
            expect(Array.isArray(problem.errors) && problem.errors.length > 0, context).toBe(true);
          }
          return;
        }
        searched++;
        if (EXPORTS.includes(path)) {
          expect(res.headers['content-type'], context).toMatch(/^text\/csv/);
          return;
        }
        const page = res.json();
        for (const item of page.data as { id: string }[]) expect(ownIds.has(item.id), context).toBe(true);
      }),
      { numRuns: RUNS },
    );
    // Not all refused: the generator reaches the search itself.
    expect(searched).toBeGreaterThan(RUNS / 10);
  });
});
