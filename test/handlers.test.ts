// Short handlers (issue 24): no function in a route file is longer than MAX_LINES, counted from its first line to
// its last, nested functions included, so a route plugin that grows past it has to be split, not just its handlers.
// Route files: src/**/api/*.ts, src/**/dashboard/**/*routes*.ts and src/dashboard/plugin.ts. A function that
// legitimately cannot be split is listed in EXEMPT with its reason; an exemption that no longer applies fails too.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const MAX_LINES = 60;

/** `file:function` → why it may stay longer than MAX_LINES. None today: every route function could be split. */
const EXEMPT: Record<string, string> = {};

interface Measured {
  /** `src/…/file.ts:name`, the name as declared or, for an anonymous function, where it is passed. */
  id: string;
  line: number;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'assets' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function isRouteFile(file: string): boolean {
  return (
    /^src\/(?:.+\/)?api\/[^/]+\.ts$/.test(file) ||
    /^src\/(?:.+\/)?dashboard\/(?:.+\/)?[^/]*routes[^/]*\.ts$/.test(file) ||
    file === 'src/dashboard/plugin.ts'
  );
}

/** What a function is called: its own name, the variable or property it is assigned to, or the call it is passed to. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  if (ts.isCallExpression(parent)) {
    const first = parent.arguments[0];
    const what = first && ts.isStringLiteralLike(first) ? first.text : '';
    return `${parent.expression.getText(source)}(${what})`;
  }
  return '(anonymous)';
}

/** Every function (declarations, arrows, expressions, methods) of a source text, with its length in lines. */
function measure(file: string, text: string): Measured[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Measured[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isMethodDeclaration(node)
    ) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ id: `${file}:${nameOf(node, source)}`, line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const routeFiles = sourceFiles(path.join(ROOT, 'src'))
  .map((file) => path.relative(ROOT, file))
  .filter(isRouteFile)
  .sort();
const measured = routeFiles.flatMap((file) => measure(file, fs.readFileSync(path.join(ROOT, file), 'utf8')));
const tooLong = measured.filter((f) => f.lines > MAX_LINES);

describe('short handlers', () => {
  it('finds the route files and their functions (the check cannot pass by reading nothing)', () => {
    expect(routeFiles).toContain('src/dashboard/plugin.ts');
    expect(routeFiles).toContain('src/forms/api/public.ts');
    expect(routeFiles.some((file) => file.startsWith('src/leads/dashboard/'))).toBe(true);
    expect(measured.length).toBeGreaterThan(100);
  });

  it(`no route function is longer than ${MAX_LINES} lines, but those listed with a reason`, () => {
    const unexplained = tooLong
      .filter((f) => !(f.id in EXEMPT))
      .map((f) => `${f.id} (line ${f.line}): ${f.lines} lines`);
    expect(unexplained).toEqual([]);
  });

  it('every exemption is still needed', () => {
    const stale = Object.keys(EXEMPT).filter((id) => !tooLong.some((f) => f.id === id));
    expect(stale).toEqual([]);
  });

  it('the measure counts a function from its first line to its last, nested functions included', () => {
    const text = [
      'export default async function routes(app) {',
      "  app.get('/a', async (request, reply) => {",
      '    return reply.send(1);',
      '  });',
      '}',
      'const helper = () => 1;',
    ].join('\n');
    expect(measure('src/x/api/y.ts', text).map((f) => [f.id, f.lines])).toEqual([
      ['src/x/api/y.ts:routes', 5],
      ['src/x/api/y.ts:app.get(/a)', 3],
      ['src/x/api/y.ts:helper', 1],
    ]);
  });

  it('knows a route file when it sees one', () => {
    expect(isRouteFile('src/leads/api/leads.ts')).toBe(true);
    expect(isRouteFile('src/api/operations.ts')).toBe(true);
    expect(isRouteFile('src/leads/dashboard/list-routes.ts')).toBe(true);
    expect(isRouteFile('src/accounts/dashboard/settings/user-routes.ts')).toBe(true);
    expect(isRouteFile('src/dashboard/plugin.ts')).toBe(true);
    expect(isRouteFile('src/leads/dashboard/lead-page.ts')).toBe(false);
    expect(isRouteFile('src/leads/dashboard/views/leads.ts')).toBe(false);
    expect(isRouteFile('src/forms/submit.ts')).toBe(false);
  });
});
