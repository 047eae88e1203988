#!/usr/bin/env node
// `npm run bench`: runs every benchmark and prints its table. `--save` also writes bench/RESULTS.md.
// `npm run bench -- parse` runs only the benchmarks whose name contains "parse"; with `--save` it
// replaces (or appends) only their sections of RESULTS.md.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const benchmarks = [
  { name: 'parse-instagram', load: () => import('./parse-instagram.mjs') },
  { name: 'check-200', load: () => import('./check-200.mjs') },
  { name: 'generate', load: () => import('./generate.mjs') },
  { name: 'regenerate', load: () => import('./regenerate.mjs') },
  { name: 'formatter', load: () => import('./formatter.mjs') },
  { name: 'serve', load: () => import('./serve.mjs') },
  { name: 'gc', load: () => import('./gc.mjs') },
  { name: 'feature-cost', load: () => import('./feature-cost.mjs') },
  { name: 'read-cost', load: () => import('./read-cost.mjs') },
  { name: 'fts-deletemerge', load: () => import('./fts-deletemerge.mjs') },
  { name: 'route-schemas', load: () => import('./route-schemas.mjs') },
  { name: 'mongodb', load: () => import('./serve-mongodb.mjs') },
  { name: 'login', load: () => import('./login.mjs') },
  { name: 'enumeration', load: () => import('./login-enumeration.mjs') },
  { name: 'search', load: () => import('./search.mjs') },
  { name: 'load-mixed', load: () => import('./load.mjs') },
  { name: 'scale', load: () => import('./scale.mjs') },
  { name: 'inject', load: () => import('./inject.mjs') },
  { name: 'auth-cost', load: () => import('./auth-cost.mjs') },
  { name: 'relations', load: () => import('./relations.mjs') },
  { name: 'events', load: () => import('./events.mjs') },
  { name: 'pg-pipeline', load: () => import('./pg-pipeline.mjs') },
];

const args = process.argv.slice(2);
const save = args.includes('--save');
const filter = args.find((a) => !a.startsWith('--'));
const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${os.platform()}`;
const commit = commitOf();
const sections = [];
console.log(`svcgen benchmarks — ${machine}\n`);
for (const bench of benchmarks) {
  if (filter && !bench.name.includes(filter)) continue;
  const { run } = await bench.load();
  const result = await run();
  const section = `## ${result.title}\n\n\`\`\`\n${result.text}\n\`\`\`\n\n${result.summary}\n`;
  console.log(`${section}`);
  sections.push(section);
}
const results = new URL('./RESULTS.md', import.meta.url);
if (save && filter && existsSync(results)) {
  writeFileSync(results, sections.reduce(withSection, readFileSync(results, 'utf8')));
} else if (save) {
  const header = `# Benchmark results\n\nProduced by \`npm run bench -- --save\` at commit ${commit} on ${new Date().toISOString().slice(0, 10)} (${machine}), every section in one run.\nThis VM's noise is about ±30 %; ratios come from contenders measured side by side in the same run.\n\n`;
  writeFileSync(results, header + sections.join('\n'));
}

/** `text` with `section` in place of the section of the same title, or at the end if there is none. */
function withSection(text, section) {
  const title = section.slice(0, section.indexOf('\n'));
  const start = text.indexOf(`${title}\n`);
  if (start < 0) return `${text.trimEnd()}\n\n${section}`;
  const end = text.indexOf('\n## ', start + title.length);
  return text.slice(0, start) + section + (end < 0 ? '' : text.slice(end));
}

/** The commit measured, marked when the work tree has changes that are not in it. */
function commitOf() {
  try {
    const git = (...a) => execFileSync('git', a, { encoding: 'utf8', cwd: new URL('..', import.meta.url) }).trim();
    const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' (with uncommitted changes)' : ''}`;
  } catch {
    return 'unknown';
  }
}
