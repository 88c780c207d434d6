// The layout's rules (docs/architecture.md), checked on the import statements of src/: shared/ knows nothing
// else, the platform knows no capability (but a migration may call a capability's table-derived triggers),
// capabilities never reach up into the composition (the root files, api/, dashboard/), and no two folders import
// each other, directly or round a longer loop.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');
const CAPABILITIES = [
  'accounts',
  'attachments',
  'customers',
  'forms',
  'leads',
  'mail',
  'personal-data',
  'webhooks',
];
const COMPOSITION = ['.', 'api', 'cli', 'client', 'dashboard'];

interface Import {
  from: string;
  to: string;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'assets' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every relative import (static, type-only, re-export or dynamic) of every file, as src-relative paths. */
function importsOf(files: string[]): Import[] {
  const specifier = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;
  return files.flatMap((file) => {
    const text = fs.readFileSync(file, 'utf8');
    return [...text.matchAll(specifier)].map((match) => ({
      from: path.relative(SRC, file),
      to: path.relative(SRC, path.resolve(path.dirname(file), match[1] as string)).replace(/\.js$/, '.ts'),
    }));
  });
}

const folderOf = (file: string) => path.dirname(file);
const topOf = (file: string) => (file.includes('/') ? (file.split('/')[0] as string) : '.');

/** The folder-level cycles of an import list, each as its folders in order (empty when there are none). */
function folderCycles(imports: Import[]): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    const a = folderOf(from);
    const b = folderOf(to);
    if (a === b) continue;
    if (!edges.has(a)) edges.set(a, new Set());
    edges.get(a)?.add(b);
  }
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    trail.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...trail.slice(trail.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    trail.pop();
    state.set(node, 'done');
  };
  for (const node of [...edges.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

const imports = importsOf(sourceFiles(SRC)).filter(({ from }) => !from.startsWith('client/'));

/**
 * The one way into a capability from the platform: a migration may call the database objects a capability derives
 * from its field table (`<capability>/…-triggers.ts`, e.g. leads/list-json-triggers.ts), so a migration that adds a
 * field takes them from the table instead of listing its columns again.
 */
const derivedSchema = ({ from, to }: Import) =>
  from.startsWith('platform/db/migrations/') && CAPABILITIES.includes(topOf(to)) && /-triggers\.ts$/.test(to);

describe('the layout of src/', () => {
  it('finds the imports it judges (the check cannot pass by reading nothing)', () => {
    expect(imports.length).toBeGreaterThan(500);
    expect(imports.some(({ from, to }) => from.startsWith('leads/') && to.startsWith('platform/db/'))).toBe(
      true,
    );
  });

  it('shared/ imports nothing of the service but itself', () => {
    const wrong = imports.filter(({ from, to }) => topOf(from) === 'shared' && topOf(to) !== 'shared');
    expect(wrong).toEqual([]);
  });

  it('the platform imports no capability and nothing of the composition', () => {
    const wrong = imports.filter(
      (i) =>
        topOf(i.from) === 'platform' && !['platform', 'shared'].includes(topOf(i.to)) && !derivedSchema(i),
    );
    expect(wrong).toEqual([]);
  });

  it('a migration imports of a capability only what it derives from its field table (…-triggers.ts)', () => {
    expect(
      derivedSchema({ from: 'platform/db/migrations/2027010101_x.ts', to: 'leads/list-json-triggers.ts' }),
    ).toBe(true);
    expect(derivedSchema({ from: 'platform/db/migrations/2027010101_x.ts', to: 'leads/create.ts' })).toBe(
      false,
    );
    expect(derivedSchema({ from: 'platform/db/store.ts', to: 'leads/list-json-triggers.ts' })).toBe(false);
  });

  it('capabilities never import the composition (root files, api/, dashboard/, cli/)', () => {
    const wrong = imports.filter(
      ({ from, to }) => CAPABILITIES.includes(topOf(from)) && COMPOSITION.includes(topOf(to)),
    );
    expect(wrong).toEqual([]);
  });

  it('no two folders import each other, directly or round a loop', () => {
    expect(folderCycles(imports)).toEqual([]);
  });

  it('the cycle check finds a loop when there is one', () => {
    expect(
      folderCycles([
        { from: 'a/x.ts', to: 'b/y.ts' },
        { from: 'b/y.ts', to: 'c/z.ts' },
        { from: 'c/z.ts', to: 'a/w.ts' },
      ]),
    ).toEqual([['a', 'b', 'c', 'a']]);
  });
});
