/**
 * The table of API changes (cases.ts), each through `svcgen diff` (exit code, classification,
 * text and --format json) and, for changes made in the RAML, through `generate` on an out-dir
 * generated from the base API: a breaking change is refused without --allow-breaking (nothing
 * written) and accepted with it (API-CHANGES.md records it); a compatible one is written and
 * recorded with no flag.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_KINDS } from '../../src/apidiff/change.js';
import { runCli } from '../support/cli.js';
import { baseApi, writeApi } from './api-source.js';
import { CASES, type ApiCase } from './cases.js';

interface JsonChange {
  readonly kind: keyof typeof CHANGE_KINDS;
  readonly breaking: boolean;
  readonly title: string;
  readonly operations: readonly string[];
  readonly path: string;
  readonly message: string;
}

let base: string;
let baseDocument: Record<string, unknown>;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'svcgen-changes-'));
  writeApi(baseApi(), join(base, 'api'));
  const run = await runCli(['generate', 'api/api.raml', '-o', 'out'], base);
  if (run.code !== 0) throw new Error(run.stderr);
  baseDocument = JSON.parse(readFileSync(join(base, 'out/openapi.json'), 'utf8')) as Record<string, unknown>;
}, 60_000);

/** A folder with `api/` (the case's API) or `old.json`/`new.json` (its documents), and a copy of the base out-dir. */
function caseFolder(c: ApiCase): { dir: string; old: string; new: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svcgen-change-'));
  cpSync(join(base, 'out'), join(dir, 'out'), { recursive: true });
  if (c.api) {
    const api = baseApi();
    c.api(api);
    writeApi(api, join(dir, 'api'));
    return { dir, old: join(base, 'api/api.raml'), new: 'api/api.raml' };
  }
  const edited = structuredClone(baseDocument);
  c.doc!(edited);
  const [before, after] = c.reverse ? [edited, baseDocument] : [baseDocument, edited];
  writeFileSync(join(dir, 'old.json'), JSON.stringify(before));
  writeFileSync(join(dir, 'new.json'), JSON.stringify(after));
  return { dir, old: 'old.json', new: 'new.json' };
}

it('has at least 30 cases, and every kind of change is in one', () => {
  expect(CASES.length).toBeGreaterThanOrEqual(30);
  const covered = new Set(CASES.flatMap((c) => c.kinds));
  expect(Object.keys(CHANGE_KINDS).filter((k) => !covered.has(k as never))).toEqual([]);
});

describe.each(CASES)('$name', (c) => {
  let folder: ReturnType<typeof caseFolder>;
  beforeAll(() => {
    folder = caseFolder(c);
  });

  it(`svcgen diff classifies it as ${c.breaking ? 'breaking' : 'compatible'}`, async () => {
    const json = await runCli(['diff', folder.old, folder.new, '--format', 'json'], folder.dir);
    expect(json.code, json.stderr).toBe(c.breaking ? 1 : 0);
    const changes = JSON.parse(json.stdout) as JsonChange[];
    const kinds = new Set(changes.map((x) => x.kind));
    for (const kind of c.kinds) expect(kinds, `${kind} in ${[...kinds].join(', ')}`).toContain(kind);
    expect(changes.some((x) => x.breaking)).toBe(c.breaking);
    for (const x of changes) {
      expect(x.breaking).toBe(CHANGE_KINDS[x.kind].breaking);
      expect(x.title).toBe(CHANGE_KINDS[x.kind].title);
      expect(x.message).not.toBe('');
    }

    const text = await runCli(['diff', folder.old, folder.new], folder.dir);
    expect(text.code).toBe(json.code);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(changes.length);
    expect(lines.filter((l) => l.startsWith('breaking '))).toHaveLength(changes.filter((x) => x.breaking).length);
    for (const kind of c.kinds) expect(text.stdout).toContain(CHANGE_KINDS[kind].title);
    const breaking = changes.filter((x) => x.breaking).length;
    expect(text.stderr).toContain(`${breaking} breaking, ${changes.length - breaking} compatible`);
  });
});

/** Generates the case's API over a copy of the base out-dir: refused when breaking, then written and recorded. */
async function generateCase(c: ApiCase): Promise<string> {
  const folder = caseFolder(c);
  const contract = () => readFileSync(join(folder.dir, 'out/openapi.json'), 'utf8');
  const changelog = join(folder.dir, 'out/API-CHANGES.md');
  const before = contract();
  const generate = (...flags: string[]) =>
    runCli(['generate', 'api/api.raml', '-o', 'out', '--allow-data-loss', ...flags], folder.dir);
  if (c.breaking) {
    const refused = await generate();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error SVC3111: breaks clients');
    expect(refused.stderr).toContain('nothing written to out');
    expect(contract()).toBe(before);
    expect(existsSync(changelog)).toBe(false);
  }
  const written = await generate(...(c.breaking ? ['--allow-breaking'] : []));
  expect(written.code, written.stderr).toBe(0);
  expect(contract()).not.toBe(before);
  const recorded = readFileSync(changelog, 'utf8');
  expect(recorded).toMatch(/^<!-- Generated by svcgen from api\.raml — do not edit\./);
  expect(recorded).toContain('## Unreleased');
  for (const kind of c.kinds) expect(recorded).toContain(CHANGE_KINDS[kind].title);
  if (c.breaking) expect(written.stderr).toContain('(allowed by --allow-breaking)');
  else expect(written.stderr).not.toContain('SVC3111');
  return recorded;
}

describe.each(CASES.filter((c) => c.api && c.breaking))('$name, generated', (c) => {
  it(
    'is refused without --allow-breaking (nothing written), and written and recorded with it',
    async () => expect(await generateCase(c)).toContain('### Breaking'),
    60_000,
  );
});

describe.each(CASES.filter((c) => c.api && !c.breaking))('$name, generated', (c) => {
  it('is written and recorded in API-CHANGES.md', async () => {
    const recorded = await generateCase(c);
    expect(recorded).toContain('### Compatible');
    expect(recorded).not.toContain('### Breaking');
  }, 60_000);
});
