// Where SQL is written (issue 24, "one way to query per capability"): in src/platform/db/ and in one queries.ts at
// the top of each capability, nowhere else. Domain code calls its capability's queries module: it builds no Kysely
// query, writes no statement or sql tag, and never asks which database it runs on (src/platform/db/portable.ts spells
// what the two databases spell differently; a queries.ts may choose a statement per database). Checked on the text
// of src/, comments left out.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');
const CAPABILITIES = ['accounts', 'attachments', 'customers', 'forms', 'leads', 'mail', 'webhooks'];

/** What writing or running SQL looks like in TypeScript here. */
const SQL_PATTERNS: [string, RegExp][] = [
  ['imports kysely', /^import\s+(?!type\s)[^;]*from\s+'kysely'/m],
  ['builds a Kysely query', /\.(?:selectFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto)\(/],
  ['uses a Kysely handle (.db)', /\w\.db\b|\{\s*db\s*[,}:]/],
  ['writes a sql tag', /\bsql(?:<[^>]*>)?`|\bsql\.(?:raw|ref|lit|id|join|table|val)\(/],
  ['writes a statement', /\bstatement\(|\bSqlBuilder\b|\bCompiledQuery\b|\.executeQuery\(/],
  ['runs a statement', /\.(?:all|run|defer)\(\s*[A-Z][A-Z0-9_]{2,}\b/],
];

/** Asking which database it runs on; the configuration's dialect (which database to open) is not that. */
const DIALECT_TEST = /\.dialect\b/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'assets' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** A file's code without its comments (a comment may name a query it does not run). */
function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

const files = sourceFiles(SRC).map((full) => {
  const file = path.relative(SRC, full);
  return { file, code: codeOf(fs.readFileSync(full, 'utf8')) };
});

const allowed = (file: string) =>
  file.startsWith('platform/db/') || CAPABILITIES.some((c) => file === `${c}/queries.ts`);

function sqlIn(code: string): string[] {
  return SQL_PATTERNS.filter(([, pattern]) => pattern.test(code)).map(([what]) => what);
}

function dialectTestsIn(code: string): boolean {
  return DIALECT_TEST.test(code.replace(/\bconfig\.database\.dialect\b/g, ''));
}

describe('where SQL is written', () => {
  it('reads the files it judges, and its patterns find SQL where there is some', () => {
    expect(files.length).toBeGreaterThan(150);
    const queries = files.find(({ file }) => file === 'webhooks/queries.ts');
    expect(queries && sqlIn(queries.code)).toEqual(
      expect.arrayContaining(['builds a Kysely query', 'writes a statement']),
    );
    expect(sqlIn("import { sql } from 'kysely';\nawait tx.all(LEAD, [id]);\nsql<number>`x`")).toEqual([
      'imports kysely',
      'writes a sql tag',
      'runs a statement',
    ]);
    expect(sqlIn(codeOf('const rows = await Promise.all(jobs);\n// tx.db.selectFrom(x)'))).toEqual([]);
    // A type from Kysely (a column type in a field table) is no SQL.
    expect(sqlIn("import type { ColumnType } from 'kysely';")).toEqual([]);
    expect(dialectTestsIn("if (tx.dialect === 'postgres') q = q.forUpdate();")).toBe(true);
    expect(dialectTestsIn("config.database.dialect === 'postgres' ? schema : undefined")).toBe(false);
  });

  it('only in src/platform/db/ and the capabilities’ queries.ts', () => {
    const wrong = files
      .filter(({ file }) => !allowed(file))
      .map(({ file, code }) => ({ file, sql: sqlIn(code) }))
      .filter(({ sql }) => sql.length);
    expect(wrong).toEqual([]);
  });

  // A capability's queries.ts is SQL: where the two databases want different statements and platform/db has no
  // helper for the difference, it may choose, behind a function whose name says what it does.
  it('no code outside src/platform/db/ and the queries.ts asks which database it runs on', () => {
    const wrong = files
      .filter(({ file }) => !allowed(file))
      .filter(({ code }) => dialectTestsIn(code))
      .map(({ file }) => file);
    expect(wrong).toEqual([]);
  });

  it("a capability's queries.ts is used by that capability only", () => {
    const specifier = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;
    const wrong = files.flatMap(({ file, code }) =>
      [...code.matchAll(specifier)]
        .map((match) => path.relative(SRC, path.resolve(SRC, path.dirname(file), match[1] as string)))
        .filter((to) => /^[^/]+\/queries\.js$/.test(to) && path.dirname(to) !== file.split('/')[0])
        .map((to) => `${file} imports ${to}`),
    );
    expect(wrong).toEqual([]);
  });
});
