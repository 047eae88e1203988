/**
 * The fast YAML reader must read exactly what the `yaml` package reads (values, styles and
 * positions), and must hand over everything else (it throws `Unsupported`). Checked on every RAML
 * and YAML file we have (the fixtures, and the RAML 0.8 TCK when it is there), on YAML generated from random values, and on mutated inputs: whenever
 * the fast reader accepts a text, the `yaml` package must accept it too and build the same tree.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DiagnosticBag } from '../../src/diagnostics/diagnostic.js';
import { readYamlFast, Unsupported } from '../../src/load/fast-yaml.js';
import { readWithYamlPackage } from '../../src/load/parse-yaml.js';
import type { RawNode } from '../../src/load/raw-yaml.js';
import { repoRoot, tckDir } from '../support/paths.js';

/** `npm run fuzz` raises this to 100,000. */
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 1000);

function fast(text: string): RawNode | null | 'unsupported' {
  try {
    return readYamlFast(text);
  } catch (error) {
    if (error instanceof Unsupported) return 'unsupported';
    throw error;
  }
}

function reference(text: string): { tree: RawNode | null | undefined; errors: string[] } {
  const diagnostics = new DiagnosticBag();
  const tree = readWithYamlPackage({ path: '<test>', text }, diagnostics);
  return { tree, errors: diagnostics.sorted().map((d) => `${d.code} ${d.message}`) };
}

/** Aliases resolved, so trees compare by content. */
function plain(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(plain);
  if (node && typeof node === 'object') {
    if ((node as RawNode).kind === 'alias') return plain((node as { target: unknown }).target);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, plain(v)]));
  }
  return node;
}

/** When the fast reader accepts `text`, it must agree with the `yaml` package exactly. */
function expectAgreement(text: string): boolean {
  const ours = fast(text);
  if (ours === 'unsupported') return false;
  const theirs = reference(text);
  expect(theirs.errors).toEqual([]);
  expect(plain(ours)).toEqual(plain(theirs.tree));
  return true;
}

function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yamlFiles(path, out);
    else if (/\.(raml|ya?ml)$/.test(name)) out.push(path);
  }
  return out;
}

const corpus = [...(tckDir ? yamlFiles(tckDir) : []), ...yamlFiles(join(repoRoot, 'fixtures'))];

describe('fast YAML reader', () => {
  it('agrees with the yaml package on every RAML/YAML file we have', () => {
    let accepted = 0;
    for (const file of corpus) if (expectAgreement(readFileSync(file, 'utf8'))) accepted++;
    // It must actually be the common path, not a reader that gives up on everything.
    expect(accepted / corpus.length).toBeGreaterThan(0.85);
  });

  it.each([
    ['the Ramses example', join(repoRoot, 'fixtures/ramses-example/api.raml')],
    ['the blog example', join(repoRoot, 'fixtures/blog/api.raml')],
  ])('reads %s itself', (_name, file) => {
    expect(fast(readFileSync(file, 'utf8'))).not.toBe('unsupported');
  });

  // The largest real API we have; skipped with the other TCK tests when the corpus is not there (test/raml/tck.test.ts says how to get it).
  it.skipIf(!tckDir)('reads the Instagram API of the TCK itself', () => {
    expect(fast(readFileSync(join(tckDir!, 'Instagram/api.raml'), 'utf8'))).not.toBe('unsupported');
  });

  it.each([
    ['an anchor', 'a: &x 1\nb: *x\n'],
    ['a tab', 'a:\tb\n'],
    ['a multi-line plain scalar', 'a: one\n  two\n'],
    ['a multi-line quoted scalar', 'a: "one\n  two"\n'],
    ['keep chomping', 'a: |+\n  x\n'],
    ['an indentation indicator', 'a: |2\n   x\n'],
    ['a more-indented folded line', 'a: >\n  x\n    y\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a merge key', 'a:\n  <<: {b: 1}\n'],
    ['an explicit key', '? a\n: b\n'],
    ['a second document', 'a: 1\n---\nb: 2\n'],
    ['a directive', '%YAML 1.2\n---\na: 1\n'],
    ['a tag other than !include', 'a: !!str 1\n'],
    ['a compact nested mapping', 'a: b: c\n'],
    ['bad indentation', 'a:\n    b: 1\n  c: 2\n'],
    ['CRLF line ends', 'a: 1\r\nb: 2\r\n'],
    ['a trailing comment after a collection', 'a:\n  b: 1\n  # gone\nc: 2\n'],
    ['an unterminated flow collection', 'a: [1, 2\n'],
  ])('leaves %s to the yaml package', (_what, text) => {
    expect(fast(text)).toBe('unsupported');
  });

  it.each([
    [
      'flow collections with implicit pairs',
      'is: [ paged: { size: 10 }, audited ]\ntype: { collection: { item: "a, b" } }\n',
    ],
    ['block scalars', 'a: |\n  one\n\n  two\nb: >-\n  folded\n  text\n\n  para\nc: |-\n  x\n'],
    ['quoted keys and escapes', '"*/*": x\n\'a\'\'b\': "tab\\there \\u00e9"\n'],
    ['sequences of mappings', 'a:\n- x: 1\n  y: [2]\n-\n  z: 3\n- - nested? no\n'],
    ['empty values', 'a:\nb:   \nc: # comment\nd: []\ne: {}\n'],
    ['core schema scalars', 'a: yes\nb: 0x1F\nc: 1.0\nd: ~\ne: .inf\nf: -12\ng: 1e3\nh: TRUE\n'],
    ['includes', 'schema: !include schemas/a.json\nlist: [ !include a.raml ]\n'],
  ])('agrees on %s', (_what, text) => {
    expectAgreement(text);
  });

  const value = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      fc.oneof(
        fc.string({ maxLength: 20 }),
        fc.integer(),
        fc.double({ noNaN: true }),
        fc.boolean(),
        fc.constant(null),
        fc.constantFrom('/users/{id}', 'application/json', '<<param>>', 'a: b', '# x', '- x', 'yes', '1.0', ''),
      ),
      fc.array(tie('node'), { maxLength: 4 }),
      fc.dictionary(
        fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('get', '200', '/items', 'a b', '?', '-')),
        tie('node'),
        { maxKeys: 4 },
      ),
    ),
  })).node;
  const options = fc.record({
    indent: fc.constantFrom(2, 4),
    indentSeq: fc.boolean(),
    flowCollectionPadding: fc.boolean(),
    defaultStringType: fc.constantFrom('PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL'),
    collectionStyle: fc.constantFrom('any', 'block', 'flow'),
  });

  it(
    'agrees on YAML generated from random values',
    () => {
      fc.assert(
        fc.property(value, options, (v, o) => {
          expectAgreement(stringify(v, o));
        }),
        { numRuns: RUNS },
      );
    },
    Math.max(60_000, RUNS * 20),
  );

  it(
    'never accepts what the yaml package reads differently (mutated RAML)',
    () => {
      const texts = corpus.map((f) => readFileSync(f, 'utf8'));
      const edit = fc.record({
        at: fc.nat(),
        cut: fc.nat({ max: 6 }),
        insert: fc.constantFrom(
          '',
          ' ',
          '  ',
          '\n',
          ':',
          ': ',
          '- ',
          '#',
          ' #',
          '"',
          "'",
          '[',
          ']',
          '{',
          '}',
          ',',
          '|',
          '>',
          '-',
          '!include ',
          '\\',
          '?',
          'x',
        ),
      });
      fc.assert(
        fc.property(fc.nat({ max: texts.length - 1 }), fc.array(edit, { minLength: 1, maxLength: 4 }), (i, edits) => {
          let text = texts[i]!;
          for (const e of edits) {
            const at = e.at % (text.length + 1);
            text = text.slice(0, at) + e.insert + text.slice(at + e.cut);
          }
          expectAgreement(text);
        }),
        { numRuns: RUNS * 3 },
      );
    },
    Math.max(60_000, RUNS * 60),
  );
});

describe('fast YAML reader: found by the property tests', () => {
  it.each([
    ['merge key as an implicit pair in a flow sequence', 'scopes: [<<: scope>>]\n'],
    ['a comment less indented than the value below its key', 'a:\n  b:\n#c: |\n      text\nd: 1\n'],
  ])('%s', (_name, text) => {
    expect(fast(text)).toBe('unsupported');
  });
});
