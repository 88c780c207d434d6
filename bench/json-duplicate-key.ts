// The cost of refusing duplicate keys and invalid UTF-8 in JSON bodies (src/platform/http/json-body.ts): the parser as it
// was (Buffer#toString, secure-json-parse) against parseJsonBody (fatal UTF-8 decode, the same parse, then
// hasDuplicateKey; findDuplicateKey runs only when there is a duplicate to name), on a typical lead body of about 1 KB and on a 60 KB body. Rounds alternate between the two
// and the best round of each counts, so other load on the machine skews the ratio as little as it can.
//
//   npx tsx bench/json-duplicate-key.ts
import secureJson from 'secure-json-parse';
import { parseJsonBody } from '../src/platform/http/json-body.js';
import { hasDuplicateKey } from '../src/platform/http/json-duplicate-key.js';

const lead = {
  title: 'Leaking tap in the kitchen, water under the sink',
  description:
    'The kitchen tap has been dripping for a week and now there is water under the sink cabinet. ' +
    'The cabinet floor is soft. We are home on weekdays after 16:00; please call before coming. '.repeat(4),
  customerName: 'Jan de Vries',
  firstName: 'Jan',
  lastName: 'de Vries',
  email: 'jan.devries@example.nl',
  phone: '+31 6 1234 5678',
  companyName: 'De Vries Bouw B.V.',
  street: 'Keizersgracht',
  streetNumber: '123',
  streetNumberAddition: 'A',
  postalCode: '1015 CJ',
  city: 'Amsterdam',
  country: 'NL',
  category: 'Plumbing',
  priority: 'high',
  budgetQuote: 'up to 500 euro',
  notes: 'Dog in the garden; ring twice.',
};
const big = {
  ...lead,
  description: 'Ééń beschrijving. '.repeat(200),
  items: Array.from({ length: 1200 }, (_, i) => ({ id: i, name: `item ${i}`, done: i % 2 === 0 })),
};

/** The parser as it was: Fastify's parseAs 'string' (a lenient UTF-8 decode), the empty check, secure-json-parse. */
const before = (bytes: Buffer) => {
  const text = bytes.toString('utf8');
  if (text.trim() === '') return undefined;
  return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
};

function bestOf(
  rounds: number,
  iterations: number,
  fns: Record<string, () => unknown>,
): Record<string, number> {
  const best: Record<string, number> = {};
  for (const fn of Object.values(fns)) for (let i = 0; i < iterations; i++) fn(); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const [name, fn] of Object.entries(fns)) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < iterations; i++) fn();
      const ns = Number(process.hrtime.bigint() - start) / iterations;
      best[name] = Math.min(best[name] ?? Number.POSITIVE_INFINITY, ns);
    }
  }
  return best;
}

for (const [name, body, iterations] of [
  ['typical lead', lead, 20_000],
  ['60 KB body', big, 200],
] as const) {
  const bytes = Buffer.from(JSON.stringify(body));
  const text = bytes.toString('utf8');
  const parsed = JSON.parse(text);
  const t = bestOf(31, iterations, {
    before: () => before(bytes),
    after: () => parseJsonBody(bytes),
    check: () => hasDuplicateKey(text, parsed),
  });
  const us = (ns: number) => `${(ns / 1000).toFixed(2)} µs`;
  console.log(
    `${name} (${bytes.length} bytes): before ${us(t.before!)}, after ${us(t.after!)} ` +
      `(${(t.after! / t.before!).toFixed(2)}x); the duplicate check alone ${us(t.check!)} ` +
      `(${(t.check! / t.before!).toFixed(2)}x the parse)`,
  );
}
