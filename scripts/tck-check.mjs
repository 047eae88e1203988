#!/usr/bin/env node
// RAML 0.8 TCK conformance: runs a command that prints a TCK-shaped JSON document for each case
// and compares it with the expected *-tck.json after normalisation.
//   node scripts/tck-check.mjs [CORPUS_DIR] -- CMD ARG... (the RAML file path is appended)
// CORPUS_DIR defaults to $RAML_TCK_DIR, else ../shared/conformance/raml-0.8-tck beside the project.
// Normalisation: drop __METADATA__ and sourceMap everywhere; errors reduced to
// {warning, line} (0-based start line), sorted. A case passes when
//  - expected has hard errors: actual has hard errors and the first hard-error line is equal;
//  - otherwise: actual has no hard errors and `specification` is deep-equal.
// Warnings are counted separately (same set of warning lines) but do not decide a case.
//
// Copied from shared/conformance/tck-check.mjs (the conformance kit kept beside svcgen, which
// holds the corpus: the RAML 0.8 part of the RAML TCK, raml-org/raml-js-parser-2, Apache-2.0), so
// that the repository needs nothing from ../shared but the corpus. Changed here: the corpus
// argument is optional, and a missing corpus is an error that says how to get it.
// test/support/tck.ts applies the same rule in process.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const SKIP = new Set(['https/test001/api.raml', 'Parameters/test002/api.raml']); // network; RAML 1.0
const argv = process.argv.slice(2);
const sep = argv.indexOf('--');
const cmd = argv.slice(sep + 1);
const verbose = argv.slice(0, sep).includes('--verbose');
const corpus =
  argv.slice(0, sep).find((a) => !a.startsWith('--')) ??
  (process.env.RAML_TCK_DIR || fileURLToPath(new URL('../../shared/conformance/raml-0.8-tck', import.meta.url)));
if (sep < 0 || cmd.length === 0) {
  console.error('usage: node scripts/tck-check.mjs [CORPUS_DIR] [--verbose] -- CMD ARG...');
  process.exit(2);
}
if (!existsSync(corpus) || !statSync(corpus).isDirectory()) {
  console.error(`tck: no RAML 0.8 TCK at ${corpus}`);
  console.error(
    'set RAML_TCK_DIR to a checkout of the RAML 0.8 TCK (src/parser/test/data/TCK/raml-0.8 of github.com/raml-org/raml-js-parser-2)',
  );
  process.exit(2);
}

function walk(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.raml') && existsSync(p.replace(/\.raml$/, '-tck.json'))) out.push(p);
  }
  return out;
}
function strip(v) {
  if (Array.isArray(v)) return v.map(strip);
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v).sort()) if (k !== '__METADATA__' && k !== 'sourceMap') o[k] = strip(v[k]);
    return o;
  }
  return v;
}
function errs(doc) {
  return (doc.errors || [])
    .map((e) => ({ warning: !!e.isWarning, line: e.range?.start?.line ?? -1 }))
    .sort((a, b) => a.line - b.line || Number(a.warning) - Number(b.warning));
}
let pass = 0,
  fail = 0,
  warnSame = 0;
const failures = [];
for (const file of walk(corpus)) {
  const rel = relative(corpus, file);
  if (SKIP.has(rel)) continue;
  const want = JSON.parse(readFileSync(file.replace(/\.raml$/, '-tck.json'), 'utf8'));
  let got;
  try {
    const out = execFileSync(cmd[0], [...cmd.slice(1), file], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 120000,
      maxBuffer: 64 << 20,
    });
    got = JSON.parse(out);
  } catch (e) {
    try {
      got = JSON.parse(e.stdout);
    } catch {
      got = null;
    }
  }
  let ok = false,
    why = 'no JSON output';
  if (got && typeof got === 'object') {
    const we = errs(want),
      ge = errs(got);
    const wh = we.filter((e) => !e.warning),
      gh = ge.filter((e) => !e.warning);
    if (wh.length) {
      ok = gh.length > 0 && gh[0].line === wh[0].line;
      why = gh.length ? `first error on line ${gh[0].line}, expected ${wh[0].line}` : 'no error reported';
    } else if (gh.length) {
      why = `unexpected error on line ${gh[0].line}`;
    } else {
      ok = isDeepStrictEqual(strip(want.specification), strip(got.specification));
      why = 'specification differs';
    }
    const ww = we.filter((e) => e.warning).map((e) => e.line),
      gw = ge.filter((e) => e.warning).map((e) => e.line);
    if (isDeepStrictEqual(ww, gw)) warnSame++;
  }
  if (ok) pass++;
  else {
    fail++;
    failures.push(`${rel}: ${why}`);
  }
}
if (verbose || fail) for (const f of failures.slice(0, verbose ? 1000 : 15)) console.log('  fail', f);
console.log(`warnings identical: ${warnSame}/${pass + fail}`);
console.log(`tck: ${pass} passed, ${fail} failed`);
