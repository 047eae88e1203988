/**
 * Fuzzing the front end (fast-check): mutated real RAML, structured random RAML, random bytes and
 * broken JSON schemas. Properties: it never throws, never takes long, and always returns either a
 * model or at least one located error. Runs 1,000 cases by default; `npm run fuzz` runs 100,000.
 * The whole generator (checks, plan, render, format) runs on a hundredth as many mutated example
 * APIs, each a copy of a fixture folder with its RAML or one of its schemas changed.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { generateProject } from '../../src/generate.js';
import { analyze } from '../../src/pipeline.js';
import { readRaml } from '../../src/raml/front-end.js';
import { repoRoot, tckDir } from '../support/paths.js';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 1000);
const SEED = process.env['FUZZ_SEED'] === undefined ? undefined : Number(process.env['FUZZ_SEED']);
const MAX_MS_PER_CASE = 2_000;
const WHOLE_RUNS = Math.max(10, Math.round(RUNS / 100));

function inputFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) inputFiles(path, out);
    else if (/\.(raml|json)$/.test(name) && statSync(path).size < 200_000) out.push(path);
  }
  return out;
}

/** Real RAML and schemas to mutate: the example APIs and RAML fixtures, and the TCK when it is there. */
const seedDirs = ['raml08', 'ramses-example', 'ramses-starter', 'blog', 'events'].map((d) =>
  join(repoRoot, 'fixtures', d),
);
const seeds = [...(tckDir ? inputFiles(tckDir) : []), ...seedDirs.flatMap((d) => inputFiles(d))].map((f) =>
  readFileSync(f, 'utf8'),
);
const work = mkdtempSync(join(tmpdir(), 'svcgen-fuzz-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let caseNumber = 0;

/** Characters that matter to YAML and RAML, so mutations hit interesting paths. */
const SIGNIFICANT = [
  ':',
  '-',
  '[',
  ']',
  '{',
  '}',
  '!',
  '&',
  '*',
  '#',
  '|',
  '>',
  "'",
  '"',
  '\n',
  ' ',
  '  ',
  '<<',
  '>>',
  '?',
  '%',
  ',',
  '/',
  '\t',
  '!include ',
  '~',
  '\u0000',
  '\u2028',
  'é',
  '&a ',
  '*a',
];

const mutation = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.oneof(fc.constantFrom(...SIGNIFICANT), fc.string({ maxLength: 8 })),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 200 }) }),
  fc.record({ kind: fc.constant('swapLines' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('indent' as const), line: fc.nat(), by: fc.integer({ min: -4, max: 4 }) }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function mutate(text: string, m: Mutation): string {
  switch (m.kind) {
    case 'insert': {
      const at = m.at % (text.length + 1);
      return text.slice(0, at) + m.text + text.slice(at);
    }
    case 'delete': {
      const at = m.at % (text.length + 1);
      return text.slice(0, at) + text.slice(at + m.length);
    }
    case 'duplicate': {
      const at = m.at % (text.length + 1);
      return text.slice(0, at) + text.slice(at, at + m.length) + text.slice(at);
    }
    case 'swapLines': {
      const lines = text.split('\n');
      const a = m.a % lines.length;
      const b = m.b % lines.length;
      [lines[a], lines[b]] = [lines[b]!, lines[a]!];
      return lines.join('\n');
    }
    case 'indent': {
      const lines = text.split('\n');
      const i = m.line % lines.length;
      lines[i] = m.by >= 0 ? ' '.repeat(m.by) + lines[i] : lines[i]!.replace(new RegExp(`^ {0,${-m.by}}`), '');
      return lines.join('\n');
    }
  }
}

const mutatedSeed = fc
  .tuple(fc.nat({ max: seeds.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 6 }))
  .map(([i, ms]) => ms.reduce(mutate, seeds[i]!));

/** Random RAML-shaped YAML: real RAML keys and template syntax in random places. */
const key = fc.constantFrom(
  'title',
  'version',
  'baseUri',
  'mediaType',
  'schemas',
  'traits',
  'resourceTypes',
  'securitySchemes',
  'securedBy',
  'documentation',
  'type',
  'is',
  'get',
  'post',
  'put',
  'delete',
  'patch',
  'get?',
  'body',
  'body?',
  'responses',
  '200',
  '200?',
  'headers',
  'queryParameters',
  'uriParameters',
  'baseUriParameters',
  'formParameters',
  'schema',
  'example',
  'description',
  'displayName',
  'usage',
  'required',
  'enum',
  'application/json',
  '/items',
  '/{id}',
  '/users{ext}',
  '<<param>>',
  'settings',
  'describedBy',
  'protocols',
  'repeat',
  'default',
  'minimum',
  // Template syntax checked where declared (issue 19): optional keys, bad references.
  'is?',
  'usage?',
  'description?',
  'type?',
  'headers?',
  'queryParameters?',
  'post?',
  '<< >>',
  '<<p | !upper>>',
  '<<a b>>',
  '<<p>>?',
);
const leaf = fc.oneof(
  fc.constantFrom(
    '<<resourcePathName | !singularize>>',
    '<<param>>',
    '<<methodName>>',
    'collection',
    'x-Ticket',
    'HTTP',
    'true',
    'null',
    '{}',
    '{"type": "object"}',
    'schemas/a.json',
  ),
  fc.constantFrom('<<p | !pluralize>>', '<< >>', '<<>>', '<<p | >>', 'TRUE', 'a', 'b', 'c'),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const { node: tree } = fc.letrec<{ node: unknown; list: unknown[]; map: Record<string, unknown> }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('list'), tie('map')),
  list: fc.array(tie('node'), { maxLength: 4 }),
  map: fc.dictionary(key, tie('node'), { maxKeys: 6 }),
}));
/** Structured documents, with some values replaced by includes of the other fuzzed files. */
const structured = tree.map(
  (value) =>
    `#%RAML 0.8\n${stringify(value)
      .replace(/: schemas\/a\.json$/gm, ': !include a.json')
      .replace(/: collection$/gm, ': !include a.raml')}`,
);

/**
 * Resource types and traits that use each other: random bodies, parents, parameters and `is`
 * lists over three names, so that cycles, optional properties and missing values meet.
 */
const templateName = fc.constantFrom('a', 'b', 'c');
const templateUse = fc.oneof(
  templateName,
  fc.dictionary(
    templateName,
    fc.oneof(fc.constant(null), fc.dictionary(fc.constantFrom('p', 'q'), leaf, { maxKeys: 2 })),
    { minKeys: 1, maxKeys: 1 },
  ),
);
const declarations = fc.array(
  fc.dictionary(templateName, fc.oneof(tree, fc.record({ type: templateUse, 'get?': tree, description: leaf })), {
    maxKeys: 2,
  }),
  { maxLength: 3 },
);
const templated = fc
  .record({
    traits: declarations,
    resourceTypes: declarations,
    '/items': fc.record(
      { type: templateUse, is: fc.array(templateUse, { maxLength: 3 }), get: tree },
      { requiredKeys: [] },
    ),
  })
  .map((value) => `#%RAML 0.8\ntitle: T\n${stringify(value)}`);

const randomText = fc.oneof(
  fc.string({ maxLength: 400 }),
  fc.string({ unit: 'binary', maxLength: 400 }),
  fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b).toString('latin1')),
);
const withHeader = randomText.map((t) => `#%RAML 0.8\n${t}`);

const brokenJson = fc
  .tuple(
    fc.constantFrom('{"type": "object", "properties": {"a": {"type": "string"}}}', '[1, 2, {"x": null}]'),
    fc.array(mutation, { maxLength: 3 }),
  )
  .map(([t, ms]) => ms.reduce(mutate, t));

const input = fc.record({
  root: fc.oneof(mutatedSeed, structured, templated, withHeader, randomText),
  include: fc.oneof(mutatedSeed, structured, randomText),
  json: brokenJson,
});

describe('front end under fuzzing', () => {
  it('has seeds of every kind: RAML and JSON schemas', () => {
    expect(seeds.filter((s) => s.startsWith('#%RAML 0.8')).length).toBeGreaterThan(10);
    expect(seeds.filter((s) => s.trimStart().startsWith('{')).length).toBeGreaterThan(10);
  });

  it(
    `never throws, never hangs, always explains itself (${RUNS} cases)`,
    () => {
      fc.assert(
        fc.property(input, ({ root, include, json }) => {
          const dir = join(work, String(caseNumber++));
          mkdirSync(dir);
          writeFileSync(join(dir, 'api.raml'), root);
          writeFileSync(join(dir, 'a.raml'), include);
          writeFileSync(join(dir, 'a.json'), json);
          const started = performance.now();
          const result = readRaml(join(dir, 'api.raml'), { cwd: dir });
          const elapsed = performance.now() - started;
          rmSync(dir, { recursive: true, force: true });
          expect(elapsed).toBeLessThan(MAX_MS_PER_CASE);
          for (const d of result.diagnostics) {
            expect(d.message).not.toBe('');
            expect(d.span).toBeDefined();
          }
          if (!result.api) expect(result.diagnostics.some((d) => d.severity === 'error')).toBe(true);
        }),
        { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
      );
    },
    Math.max(120_000, RUNS * 50),
  );
});

/** A fixture folder and one of its files (api.raml or a schema) changed by a few mutations. */
const exampleFolders = ['ramses-example', 'ramses-starter', 'blog', 'events'].map((d) => join(repoRoot, 'fixtures', d));
const mutatedExample = fc
  .tuple(fc.constantFrom(...exampleFolders), fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 2 }))
  .map(([folder, pick, ms]) => {
    const files = inputFiles(folder).map((f) => f.slice(folder.length + 1));
    const file = files[pick % files.length]!;
    return { folder, file, text: ms.reduce(mutate, readFileSync(join(folder, file), 'utf8')) };
  });

describe('the whole generator under fuzzing', () => {
  let generated = 0;
  afterAll(() =>
    console.log(`whole generator: ${generated} of ${WHOLE_RUNS} mutated APIs generated, the rest refused with errors`),
  );

  it(
    `generates a project from every API its checks accept, and explains every refusal (${WHOLE_RUNS} cases)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(mutatedExample, async ({ folder, file, text }) => {
          const dir = join(work, `whole-${caseNumber++}`);
          cpSync(folder, dir, { recursive: true });
          writeFileSync(join(dir, file), text);
          try {
            const analysis = analyze(join(dir, 'api.raml'), { cwd: dir });
            for (const d of analysis.diagnostics) expect(d.message).not.toBe('');
            if (analysis.diagnostics.some((d) => d.severity === 'error')) return;
            generated++;
            expect(analysis.ir).toBeDefined();
            const project = await generateProject(analysis.ir!, { ramlFile: 'api.raml' });
            expect([...project.tree.keys()]).toEqual(
              expect.arrayContaining(['package.json', 'src/app.ts', 'openapi.json']),
            );
            for (const output of project.tree.values()) expect(output.content, output.path).not.toBe('');
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }),
        { numRuns: WHOLE_RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
      );
    },
    Math.max(300_000, WHOLE_RUNS * 10_000),
  );
});
