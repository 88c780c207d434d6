// The catalogs: the same keys in both languages, the same placeholders and tags in each message, every key used
// in the code, and every message a valid ICU MessageFormat that formats in its language.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { CATALOGS, LOCALES, type MessageKey, translator } from '../../src/shared/i18n/index.js';

const keys = (locale: (typeof LOCALES)[number]) => Object.keys(CATALOGS[locale]).sort();

/** "name:type" for each argument, "<tag>" for each tag, in a message and its plural/select branches. */
function signature(elements: MessageFormatElement[], out = new Set<string>()): Set<string> {
  for (const element of elements) {
    switch (element.type) {
      case TYPE.argument:
        out.add(`${element.value}:text`);
        break;
      case TYPE.number:
      case TYPE.date:
      case TYPE.time:
        out.add(`${element.value}:${TYPE[element.type]}`);
        break;
      case TYPE.plural:
      case TYPE.select:
        out.add(`${element.value}:${TYPE[element.type]}`);
        for (const option of Object.values(element.options)) signature(option.value, out);
        break;
      case TYPE.tag:
        out.add(`<${element.value}>`);
        signature(element.children, out);
        break;
    }
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return /\.(ts|js)$/.test(name) && !name.endsWith('.d.ts') ? [file] : [];
  });
}

describe('the message catalogs', () => {
  it('hold the same keys in Dutch and English', () => {
    expect(keys('nl')).toEqual(keys('en'));
  });

  it('give each message the same placeholders, plurals and tags in both languages', () => {
    const differ: string[] = [];
    for (const key of keys('en')) {
      const en = [...signature(parse(CATALOGS.en[key as MessageKey]))].sort();
      const nl = [...signature(parse(CATALOGS.nl[key as MessageKey] ?? ''))].sort();
      if (en.join() !== nl.join()) differ.push(`${key}: en ${en.join(' ')} / nl ${nl.join(' ')}`);
    }
    expect(differ).toEqual([]);
  });

  it('have no empty message, and every message formats in its language', () => {
    for (const locale of LOCALES) {
      const tr = translator(locale);
      for (const key of keys(locale)) {
        expect(CATALOGS[locale][key as MessageKey].trim(), `${locale} ${key}`).not.toBe('');
        const values = Object.fromEntries(
          [...signature(parse(CATALOGS[locale][key as MessageKey]))]
            .filter((s) => !s.startsWith('<'))
            .map((s) => {
              const [name, type] = s.split(':');
              return [name, type === 'text' || type === 'select' ? 'x' : 2];
            }),
        );
        const tags = [...signature(parse(CATALOGS[locale][key as MessageKey]))].filter((s) =>
          s.startsWith('<'),
        );
        for (const tag of tags) values[tag.slice(1, -1)] = ((chunks: unknown[]) => chunks.join('')) as never;
        expect(() => tr.parts(key as MessageKey, values), `${locale} ${key}`).not.toThrow();
      }
    }
  });

  it('are all used: each key is written out in the code (never built from pieces, so it can be found)', () => {
    const code = sourceFiles(path.resolve('src'))
      .filter((file) => !file.includes(`${path.sep}catalogs${path.sep}`))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const unused = keys('en').filter((key) => !code.includes(`'${key}'`) && !code.includes(`"${key}"`));
    expect(unused).toEqual([]);
  });

  it('are sorted by key, so two changes to a catalog merge cleanly', () => {
    for (const locale of LOCALES) {
      const file = readFileSync(path.resolve(`src/shared/i18n/catalogs/${locale}.json`), 'utf8');
      expect(Object.keys(JSON.parse(file))).toEqual(keys(locale));
    }
  });
});
