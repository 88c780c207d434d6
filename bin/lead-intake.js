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
process.exitCode = await main(process.argv.slice(2));
