#!/usr/bin/env node
// The lead-intake command. Runs the compiled CLI (npm install builds it; npm run build rebuilds).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/index.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('lead-intake is not built yet: run "npm run build" in the project directory.');
  process.exit(1);
}
const { main } = await import(entry.href);
const code = await main(process.argv.slice(2));
// A failed command exits at once: an open pool or a half-started server must not keep the process alive.
// A successful "serve" returns while still listening, so success only sets the code.
if (code !== 0) process.exit(code);
process.exitCode = 0;
