// Tests that start real server processes run the compiled CLI: rebuild dist/ first when src/ is newer.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const time = entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

/**
 * The search migration's extensions live in public on the test server, never in a test's own schema: tests drop
 * their schemas, and an extension inside one would go with it, breaking every other schema's search functions
 * while other test files run. Creates them there, or moves them there when an earlier run left them elsewhere.
 */
async function searchExtensionsInPublic(url: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const name of ['pg_trgm', 'unaccent']) {
      const { rows } = await client.query<{ nspname: string }>(
        'select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = $1',
        [name],
      );
      if (!rows[0]) await client.query(`create extension if not exists ${name} with schema public`);
      else if (rows[0].nspname !== 'public') await client.query(`alter extension ${name} set schema public`);
    }
  } finally {
    await client.end();
  }
}

export default async function setup() {
  if (process.env.TEST_DATABASE_URL) await searchExtensionsInPublic(process.env.TEST_DATABASE_URL);
  const root = path.resolve(import.meta.dirname, '..');
  const marker = path.join(root, 'dist', '.tsbuildinfo');
  const built = fs.existsSync(marker) ? fs.statSync(marker).mtimeMs : 0;
  if (newestMtime(path.join(root, 'src')) > built) {
    execFileSync(
      process.execPath,
      [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: root,
        stdio: 'inherit',
      },
    );
    // tsc leaves .tsbuildinfo alone when nothing it tracks changed; touch it so the next run skips the check.
    const now = new Date();
    fs.utimesSync(marker, now, now);
  }
}
