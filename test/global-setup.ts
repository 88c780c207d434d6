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

export default function setup() {
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
