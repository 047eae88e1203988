/** RAML 0.8 §Includes, and svcgen's confinement and limits on them. */
import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DiagnosticBag } from '../../src/diagnostics/diagnostic.js';
import { loadRaml } from '../../src/load/load-raml.js';
import { analyze } from '../../src/pipeline.js';
import { get, isMap, isScalar, toPlain, type YMap } from '../../src/load/ynode.js';
import { raml, writeTree } from '../support/files.js';
import { brief } from '../support/front-end.js';

function load(files: Record<string, string | Uint8Array>) {
  const dir = writeTree(files);
  const diagnostics = new DiagnosticBag();
  const document = loadRaml(join(dir, 'api.raml'), diagnostics, { cwd: dir });
  return {
    document,
    root: document?.root as YMap,
    diagnostics: brief(diagnostics.sorted(), dir),
    dir,
    messages: diagnostics.sorted().map((d) => d.message),
  };
}

describe('includes', () => {
  it('resolves paths against the including file, not the root', () => {
    const { root, diagnostics } = load({
      'api.raml': raml('title: T\ntraits: !include lib/traits.raml\n'),
      'lib/traits.raml': '- paged: !include parts/paged.raml\n',
      'lib/parts/paged.raml': 'description: from lib/parts\n',
    });
    expect(diagnostics).toEqual([]);
    expect(toPlain(get(root, 'traits')!)).toEqual([{ paged: { description: 'from lib/parts' } }]);
  });

  it('splices .raml, .yaml and .yml as YAML and keeps JSON, Markdown and other files as text', () => {
    const { root, diagnostics } = load({
      'api.raml': raml(
        'title: T\na: !include a.yaml\nb: !include b.yml\nc: !include c.json\nd: !include d.md\ne: !include e.xsd\n',
      ),
      'a.yaml': 'x: 1\n',
      'b.yml': '[1, 2]\n',
      'c.json': '{"x": 1}\n',
      'd.md': '# Title\n',
      'e.xsd': '<schema/>\n',
    });
    expect(diagnostics).toEqual([]);
    expect(toPlain(root)).toMatchObject({ a: { x: 1 }, b: [1, 2], c: '{"x": 1}\n', d: '# Title\n', e: '<schema/>\n' });
  });

  it('remembers which file included text came from', () => {
    const { root } = load({ 'api.raml': raml('title: T\nc: !include schemas/c.json\n'), 'schemas/c.json': '{}' });
    const c = get(root, 'c');
    expect(isScalar(c) && c.includedFile?.path.endsWith('schemas/c.json')).toBe(true);
  });

  it('locates nodes of included YAML in the included file', () => {
    const { root } = load({
      'api.raml': raml('title: T\nx: !include sub/x.raml\n'),
      'sub/x.raml': '#%RAML 0.8\na:\n  b: 1\n',
    });
    const x = get(root, 'x');
    expect(isMap(x) && x.span.source.path.endsWith('sub/x.raml')).toBe(true);
  });

  it('suggests the folder a missing file is in, where the one written is a slip away', () => {
    const hints = (files: Record<string, string>) => {
      const dir = writeTree(files);
      const diagnostics = new DiagnosticBag();
      loadRaml(join(dir, 'api.raml'), diagnostics, { cwd: dir });
      return diagnostics.sorted().map((d) => [d.code, d.hint]);
    };
    expect(
      hints({ 'api.raml': raml('title: T\nx: !include schema/review.json\n'), 'schemas/review.json': '{}' }),
    ).toEqual([['SVC1010', 'did you mean `schemas/review.json`?']]);
    expect(
      hints({ 'api.raml': raml('title: T\nx: !include api/schema/review.json\n'), 'api/schemas/review.json': '{}' }),
    ).toEqual([['SVC1010', 'did you mean `api/schemas/review.json`?']]);
    // No folder near the one written has it: where paths are read from.
    expect(
      hints({ 'api.raml': raml('title: T\nx: !include models/review.json\n'), 'schemas/review.json': '{}' })[0]?.[1],
    ).toMatch(/^paths are relative to the including file's folder/);
  });

  it('accepts an anchor on an include and an alias to it', () => {
    const { root, diagnostics } = load({
      'api.raml': raml('title: T\na: &inc !include x.yaml\nb: *inc\n'),
      'x.yaml': 'k: v\n',
    });
    expect(diagnostics).toEqual([]);
    expect(toPlain(root)).toMatchObject({ a: { k: 'v' }, b: { k: 'v' } });
  });

  it.each([
    [
      'a missing file, with a suggestion',
      { 'api.raml': raml('title: T\nx: !include shemas.json\n'), 'schemas.json': '{}' },
      ['SVC1010 api.raml:3:4'],
      'included file not found: shemas.json',
    ],
    [
      'a path outside the API folder',
      { 'api.raml': raml('title: T\nx: !include ../outside.json\n') },
      ['SVC1011 api.raml:3:4'],
      'include leaves the API folder: ../outside.json',
    ],
    [
      'an absolute path',
      { 'api.raml': raml('title: T\nx: !include /etc/hostname\n') },
      ['SVC1011 api.raml:3:4'],
      'include leaves the API folder: /etc/hostname',
    ],
    [
      'a URL',
      { 'api.raml': raml('title: T\nx: !include http://127.0.0.1:1/x.json\n') },
      ['SVC1013 api.raml:3:4'],
      'svcgen does not fetch remote includes: http://127.0.0.1:1/x.json',
    ],
    [
      'a file: URL',
      { 'api.raml': raml('title: T\nx: !include file:///etc/passwd\n') },
      ['SVC1013 api.raml:3:4'],
      'svcgen does not fetch remote includes: file:///etc/passwd',
    ],
    [
      'a directory',
      { 'api.raml': raml('title: T\nx: !include sub\n'), 'sub/a.json': '{}' },
      ['SVC1015 api.raml:3:4'],
      'sub is not a regular file',
    ],
    [
      'an empty path',
      { 'api.raml': raml('title: T\nx: !include\n') },
      ['SVC1014 api.raml:3:4'],
      '!include needs a file path',
    ],
    [
      'a parameter in the path',
      { 'api.raml': raml('title: T\nx: !include <<name>>.json\n') },
      ['SVC1014 api.raml:3:4'],
      'include paths cannot use parameters: <<name>>.json',
    ],
    [
      'binary content',
      { 'api.raml': raml('title: T\nx: !include logo.png\n'), 'logo.png': new Uint8Array([0x89, 0x50, 0, 1, 2]) },
      ['SVC1003 api.raml:3:4'],
      'logo.png is not UTF-8 text',
    ],
    [
      'invalid UTF-8',
      { 'api.raml': raml('title: T\nx: !include latin1.md\n'), 'latin1.md': new Uint8Array([0x63, 0x61, 0x66, 0xe9]) },
      ['SVC1003 api.raml:3:4'],
      'latin1.md is not UTF-8 text',
    ],
    [
      'include on a mapping',
      { 'api.raml': raml('title: T\nx: !include\n  a: 1\n') },
      ['SVC1014 api.raml:4:3'],
      '!include must be followed by a file path',
    ],
  ])('reports %s at the !include', (_what, files, expected, message) => {
    const { diagnostics, messages } = load(files);
    expect(diagnostics).toEqual(expected);
    expect(messages).toEqual([message]);
  });

  it('detects a cycle, however the path is spelled', () => {
    const { diagnostics, messages } = load({
      'api.raml': raml('title: T\nx: !include a.raml\n'),
      'a.raml': 'y: !include sub/../b.raml\n',
      'b.raml': 'z: !include ./a.raml\n',
      'sub/.keep': '',
    });
    expect(diagnostics).toEqual(['SVC1012 b.raml:1:4']);
    expect(messages).toEqual(['include cycle: a.raml → b.raml → a.raml']);
  });

  it('reports an include of itself as a cycle', () => {
    const { diagnostics, messages } = load({
      'api.raml': raml('title: T\nx: !include a.raml\n'),
      'a.raml': 'y: !include a.raml\n',
    });
    expect(diagnostics).toEqual(['SVC1012 a.raml:1:4']);
    expect(messages).toEqual(['include cycle: a.raml → a.raml']);
  });

  it('refuses a NUL byte in an include path, before looking for the file', () => {
    const { diagnostics, messages } = load({
      'api.raml': raml('title: T\nx: !include "a.json\\0.png"\n'),
      'a.json': '{}',
    });
    expect(diagnostics).toEqual(['SVC1014 api.raml:3:4']);
    expect(messages).toEqual(['include path contains a NUL character']);
  });

  it('never reads /dev/zero, named or behind a symbolic link in the API folder', () => {
    const dir = writeTree({ 'api.raml': raml('title: T\nx: !include /dev/zero\ny: !include zero.md\n') });
    symlinkSync('/dev/zero', join(dir, 'zero.md'));
    const diagnostics = new DiagnosticBag();
    loadRaml(join(dir, 'api.raml'), diagnostics, { cwd: dir }); // reading it would never end
    expect(brief(diagnostics.sorted(), dir)).toEqual(['SVC1011 api.raml:3:4', 'SVC1011 api.raml:4:4']);
  });

  // An attacker probe's `!include fifo.txt` hung validate: opening a named pipe waits for a writer.
  it('refuses a named pipe in the API folder without waiting for a writer', () => {
    const dir = writeTree({ 'api.raml': raml('title: T\nx: !include fifo.txt\n') });
    execFileSync('mkfifo', [join(dir, 'fifo.txt')]);
    const diagnostics = new DiagnosticBag();
    loadRaml(join(dir, 'api.raml'), diagnostics, { cwd: dir });
    expect(brief(diagnostics.sorted(), dir)).toEqual(['SVC1015 api.raml:3:4']);
    expect(diagnostics.sorted()[0]!.message).toBe('fifo.txt is not a regular file');
  }, 10_000);

  it('refuses a symbolic link that leaves the API folder', () => {
    const outside = writeTree({ 'secret.json': '{"secret": true}' });
    const dir = writeTree({ 'api.raml': raml('title: T\nx: !include link.json\n') });
    symlinkSync(join(outside, 'secret.json'), join(dir, 'link.json'));
    const diagnostics = new DiagnosticBag();
    const document = loadRaml(join(dir, 'api.raml'), diagnostics, { cwd: dir });
    expect(brief(diagnostics.sorted(), dir)).toEqual(['SVC1011 api.raml:3:4']);
    expect(toPlain(document!.root!)).toEqual({ title: 'T', x: null });
  });

  it('reports a tab used as indentation alone, not the errors that follow from it', () => {
    const { diagnostics } = load({
      'api.raml': raml(
        'title: T\nsecuritySchemes:\n  - ticket:\n\t    type: x-Ticket\n  - token:\n      type: x-ApiKey\n/a:\n  get:\n',
      ),
    });
    expect(diagnostics).toEqual([expect.stringMatching(/^SVC1004 .*api\.raml:5:1/)]);
  });

  it('reports a line indented wrong alone, not the errors that follow from it, and keeps duplicate keys elsewhere', () => {
    const { diagnostics } = load({
      'api.raml': raml(
        'title: T\nsecuritySchemes:\n    - a:\n        type: x-ACL\n      - b:\n        type: x-ACL\n/a:\n  get:\n  get:\n',
      ),
    });
    expect(diagnostics).toEqual([
      expect.stringMatching(/^SVC1004 .*api\.raml:6:1/),
      expect.stringMatching(/^SVC1005 .*api\.raml:10:3/),
    ]);
  });

  it("puts the caret of a key out of its level's column on the key, not on the line before or at column 1", () => {
    // A new user's under-indented `/{id}:` was pointed at the end of the line before.
    const { diagnostics } = load({
      'api.raml': raml('title: T\n/items:\n    get:\n    post:\n  /{id}:\n      get:\n'),
    });
    expect(diagnostics).toEqual([expect.stringMatching(/^SVC1004 .*api\.raml:6:3/)]);
  });

  it('reports the first error only once for a file included many times', () => {
    const { diagnostics } = load({
      'api.raml': raml('title: T\na: !include x.yaml\nb: !include x.yaml\n'),
      'x.yaml': 'k: [\n',
    });
    expect(diagnostics.filter((d) => d.startsWith('SVC1004'))).toHaveLength(1);
  });
});

describe('limits', () => {
  it('stops a billion-laughs alias bomb quickly', () => {
    let text = 'title: T\nl0: &l0 [a, a, a, a, a, a, a, a, a, a]\n';
    for (let i = 1; i < 10; i++)
      text += `l${i}: &l${i} [${Array(10)
        .fill(`*l${i - 1}`)
        .join(', ')}]\n`;
    const started = performance.now();
    const { diagnostics, document } = load({ 'api.raml': raml(text) });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(diagnostics).toEqual(['SVC1008 api.raml:8:45']);
    expect(document?.root).toBeUndefined();
  });

  it('stops an include fan-out bomb quickly', () => {
    const files: Record<string, string> = { 'api.raml': raml('title: T\nx: !include f1.yaml\n') };
    for (let i = 1; i <= 12; i++)
      files[`f${i}.yaml`] =
        i < 12
          ? `[${Array(10)
              .fill(`!include f${i + 1}.yaml`)
              .join(', ')}]\n`
          : 'leaf\n';
    const started = performance.now();
    const { diagnostics, document } = load(files);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatch(/^SVC1008 f\d+\.yaml:1:\d+$/);
    expect(document?.root).toBeUndefined();
  });

  it('refuses a file over 5 MiB without parsing it', () => {
    const { diagnostics } = load({
      'api.raml': raml('title: T\nx: !include big.md\n'),
      'big.md': 'x'.repeat(5 * 1024 * 1024 + 1),
    });
    expect(diagnostics).toEqual(['SVC1002 api.raml:3:4']);
  });

  it('reports nesting deeper than 256 levels', () => {
    const { diagnostics } = load({ 'api.raml': raml(`title: T\nx: ${'['.repeat(300)}${']'.repeat(300)}\n`) });
    expect(diagnostics).toEqual(['SVC1009 api.raml:3:260']);
  });

  it('reports a JSON schema nested 10,000 levels deep, without a stack overflow', () => {
    const deep = `{"type": "object", "properties": {"x": ${'{"items": '.repeat(10_000)}{}${'}'.repeat(10_000)}}}`;
    const dir = writeTree({
      'api.raml': raml(
        'title: T\n/items:\n  post:\n    body:\n      application/json:\n        schema: !include item.json\n',
      ),
      'item.json': deep,
    });
    const analysis = analyze(join(dir, 'api.raml'), { cwd: dir });
    const problems = analysis.diagnostics.filter((d) => d.severity === 'error');
    expect(problems.map((d) => d.message)).toEqual([expect.stringMatching(/nesting deeper than 256 levels/)]);
    expect(brief(problems, dir)).toEqual([expect.stringMatching(/^SVC\d{4} item\.json:1:\d+$/)]);
  });

  it('survives nesting that overflows the YAML parser', () => {
    const { diagnostics } = load({ 'api.raml': raml(`title: T\nx: ${'['.repeat(30000)}${']'.repeat(30000)}\n`) });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatch(/^SVC1009 /);
  });
});

describe('YAML', () => {
  it.each([
    ['a syntax error', 'title: T\nx: [1, 2\n', 'SVC1004'],
    ['a duplicate key', 'title: T\ntitle: U\n', 'SVC1005'],
    ['a complex key', 'title: T\n? [a, b]\n: c\n', 'SVC1006'],
    ['a merge key', 'title: T\na: &a {x: 1}\nb:\n  <<: *a\n', 'SVC1006'],
    ['a second document', 'title: T\n---\ntitle: U\n', 'SVC1006'],
    ['an unknown tag', 'title: T\nx: !inclde a.json\n', 'SVC1007'],
  ])('reports %s', (_what, text, code) => {
    expect(load({ 'api.raml': raml(text) }).diagnostics.map((d) => d.split(' ')[0])).toContain(code);
  });

  it('reads YAML 1.2: yes/no/on/off are strings, ~ and empty are null', () => {
    const { root } = load({ 'api.raml': raml('title: T\na: yes\nb: off\nc: ~\nd:\ne: 0x1f\nf: 1.0\n') });
    expect(toPlain(root)).toEqual({ title: 'T', a: 'yes', b: 'off', c: null, d: null, e: 31, f: 1 });
    expect(isScalar(get(root, 'f')) && (get(root, 'f') as { text: string }).text).toBe('1.0');
  });

  it('keeps __proto__ keys as plain data', () => {
    const { root } = load({ 'api.raml': raml('title: T\nx:\n  __proto__:\n    polluted: true\n') });
    const plain = toPlain(root) as { x: Record<string, unknown> };
    expect(Object.keys(plain.x)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('the RAML header', () => {
  it.each([
    ['RAML 1.0', '#%RAML 1.0\ntitle: T\n', 'this is a RAML 1.0 document; svcgen reads RAML 0.8'],
    ['no header', 'title: T\n', 'the file does not start with `#%RAML 0.8`'],
  ])('refuses %s', (_what, text, message) => {
    const { messages, document } = load({ 'api.raml': text });
    expect(messages).toEqual([message]);
    expect(document).toBeUndefined();
  });

  it('tolerates blank lines before the header, with a warning', () => {
    const { diagnostics, root } = load({ 'api.raml': '\n#%RAML 0.8\ntitle: T\n' });
    expect(diagnostics).toEqual(['SVC1101 api.raml:1:1']);
    expect(toPlain(root)).toEqual({ title: 'T' });
  });
});
