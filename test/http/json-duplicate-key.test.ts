// findDuplicateKey: the single-pass scan behind "duplicate key in the JSON body" (src/platform/http/json-body.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findDuplicateKey, hasDuplicateKey } from '../../src/platform/http/json-duplicate-key.js';
import { quickRuns } from '../quick.js';

describe('findDuplicateKey', () => {
  it.each([
    ['{"a":1,"a":2}', 'a'],
    ['{"a":1,"b":{"c":1,"c":2}}', 'c'],
    ['[{"a":1},{"b":1,"b":2}]', 'b'],
    ['{"a":[1,{"x":[{"y":1,"y":1}]}]}', 'y'],
    ['{"a":1,"\\u0061":2}', 'a'],
    ['{"\\"":1,"\\"":2}', '"'],
    ['{"a\\\\":1,"a\\\\":2}', 'a\\'],
    [' { "a" : 1 ,\n\t"a"\r\n: 2 } ', 'a'],
    ['{"":1,"":2}', ''],
    ['{"a":{},"a":[]}', 'a'],
  ])('finds the duplicate in %s', (text, key) => {
    // The scan only sees text JSON.parse accepted.
    expect(hasDuplicateKey(text, JSON.parse(text))).toBe(true);
    expect(findDuplicateKey(text)).toBe(key);
  });

  it.each([
    '{}',
    '[]',
    '"a"',
    '12',
    'null',
    '{"a":1,"b":2}',
    '{"a":{"a":{"a":1}}}',
    '[{"a":1},{"a":2}]',
    '{"a":"a","b":"a"}',
    '{"a":"\\"a\\":1,\\"a\\":2","b":"x"}',
    '{"a\\\\":1,"a":2}',
    '{"a":["b","b"],"b":["a"]}',
    '{"x":"}{][","y":"\\\\","z":"\\\\\\""}',
  ])('finds none in %s', (text) => {
    expect(hasDuplicateKey(text, JSON.parse(text))).toBe(false);
    expect(findDuplicateKey(text)).toBeUndefined();
  });

  it('agrees with JSON.parse on any JSON value: none where a serialiser wrote it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        expect(hasDuplicateKey(text, JSON.parse(text))).toBe(false);
        expect(findDuplicateKey(text)).toBeUndefined();
      }),
      { numRuns: quickRuns(500) },
    );
  });

  it('counts keys through deep nesting without recursion', () => {
    const deep = `${'{"a":['.repeat(20_000)}{"b":1,"b":2}${']}'.repeat(20_000)}`;
    expect(hasDuplicateKey(deep, JSON.parse(deep))).toBe(true);
    expect(findDuplicateKey(deep)).toBe('b');
  });

  it('finds a key repeated at any depth of any JSON value', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.string({ maxLength: 8 }),
        fc.jsonValue(),
        fc.jsonValue(),
        (around, key, first, second) => {
          // One object with `key` twice, placed inside (or as) a random value.
          const duplicated = `{${JSON.stringify(key)}:${JSON.stringify(first)},${JSON.stringify(key)}:${JSON.stringify(second)}}`;
          const text = `[${JSON.stringify(around)},{"inner":${duplicated}}]`;
          expect(hasDuplicateKey(text, JSON.parse(text))).toBe(true);
          expect(findDuplicateKey(text)).toBe(key);
        },
      ),
      { numRuns: quickRuns(500) },
    );
  });
});
