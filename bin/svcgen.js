#!/usr/bin/env node
// Thin launcher: the CLI lives in src/cli (compiled to dist/ by `npm install`/`npm run build`).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('svcgen is not built yet: run `npm install` (or `npm run build`) in the svcgen folder first.');
  process.exit(3);
}
// A reader that stops early (`svcgen inspect … | head`) closes the pipe: that ends the output, not in an error.
process.stdout.on('error', (error) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
