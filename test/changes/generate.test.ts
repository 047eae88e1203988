/**
 * `generate` and the contract clients were given, beyond the table of changes: nothing said on an
 * unchanged regeneration, the first generation, --release, entries kept newest first, --check,
 * renames, and an openapi.json broken by hand.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { baseApi, edited, writeApi, type ApiSource } from './api-source.js';

let base: string;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'svcgen-contract-'));
  writeApi(baseApi(), join(base, 'api'));
  const run = await runCli(['generate', 'api/api.raml', '-o', 'out'], base);
  if (run.code !== 0) throw new Error(run.stderr);
}, 60_000);

/** A copy of the base project, its API edited by `edit`. */
function project(edit: (api: ApiSource) => void = () => {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svcgen-contract-case-'));
  cpSync(join(base, 'out'), join(dir, 'out'), { recursive: true });
  const api = baseApi();
  edit(api);
  writeApi(api, join(dir, 'api'));
  return {
    dir,
    edit(more: (api: ApiSource) => void) {
      more(api);
      writeApi(api, join(dir, 'api'));
    },
    generate: (...flags: string[]) => runCli(['generate', 'api/api.raml', '-o', 'out', ...flags], dir),
    read: (path: string) => readFileSync(join(dir, 'out', path), 'utf8'),
    has: (path: string) => existsSync(join(dir, 'out', path)),
  };
}

const dropPatch = (a: ApiSource) => void (a.raml = edited(a.raml, '    patch:\n    delete:\n', '    delete:\n'));
const addColor = (a: ApiSource) =>
  void (a.item.properties['color'] = { type: 'string', _db_settings: { type: 'string' } });

describe('generate and the API contract', () => {
  it('says nothing about the API at the first generation, nor when it did not change', async () => {
    expect(existsSync(join(base, 'out/API-CHANGES.md'))).toBe(false);
    const p = project();
    const run = await p.generate();
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(/SVC311|API changes|API-CHANGES/);
    expect(p.has('API-CHANGES.md')).toBe(false);
  });

  it('titles the entry with --release and keeps earlier entries, newest first', async () => {
    const p = project(addColor);
    expect((await p.generate('--release', 'v1.1')).code).toBe(0);
    p.edit(dropPatch);
    expect((await p.generate('--allow-breaking', '--release', 'v2.0')).code).toBe(0);
    const log = p.read('API-CHANGES.md');
    expect([...log.matchAll(/^## (.*)$/gm)].map((m) => m[1])).toEqual(['v2.0', 'v1.1']);
    // The kind says it all: not "method removed — was removed".
    expect(log.slice(log.indexOf('## v2.0'), log.indexOf('## v1.1'))).toContain(
      '`PATCH /items/{id}`: method removed\n',
    );
    expect(log.slice(log.indexOf('## v1.1'))).toContain('`Item.color');
    // Unchanged since: the file stays as it is, and so does the next run's.
    const again = await p.generate();
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('0 added, 0 changed, 0 deleted');
    expect(p.read('API-CHANGES.md')).toBe(log);
    expect(log).not.toMatch(/\d{4}-\d{2}-\d{2}/);
  });

  it('names what was Unreleased by --release, on a run that changes nothing itself', async () => {
    const p = project(addColor);
    expect((await p.generate()).code).toBe(0);
    expect([...p.read('API-CHANGES.md').matchAll(/^## (.*)$/gm)].map((m) => m[1])).toEqual(['Unreleased']);
    const released = await p.generate('--release', 'v1.1');
    expect(released.code, released.stderr).toBe(0);
    expect([...p.read('API-CHANGES.md').matchAll(/^## (.*)$/gm)].map((m) => m[1])).toEqual(['v1.1']);
    expect(p.read('API-CHANGES.md')).toContain('`Item.color');
  });

  it('refuses a release name API-CHANGES.md already has, and says when there is nothing to release', async () => {
    const p = project(addColor);
    expect((await p.generate('--release', 'v1.1')).code).toBe(0);
    p.edit(dropPatch);
    expect((await p.generate('--allow-breaking', '--release', 'v2.0')).code).toBe(0);
    const log = p.read('API-CHANGES.md');
    // Nothing changed since v2.0 was released: no entry, and the name stays free.
    const idle = await p.generate('--release', 'v2.1');
    expect([idle.code, idle.stderr]).toEqual([
      0,
      expect.stringContaining('warning SVC3115: --release v2.1: nothing unreleased'),
    ]);
    expect(p.read('API-CHANGES.md')).toBe(log);
    // The same --release again (a CI job run twice): the release it wrote stands, and nothing is said.
    const repeated = await p.generate('--release', 'v2.0');
    expect([repeated.code, repeated.stderr]).toEqual([0, expect.not.stringContaining('SVC311')]);
    expect(p.read('API-CHANGES.md')).toBe(log);
    // A change released under an earlier release's name: refused, nothing written.
    p.edit((a) => void (a.item.properties['size'] = { type: ['integer', 'null'], _db_settings: { type: 'integer' } }));
    const reused = await p.generate('--release', 'v1.1');
    expect([reused.code, reused.stderr]).toEqual([
      1,
      expect.stringContaining('error SVC3114: --release v1.1: API-CHANGES.md already has a release v1.1'),
    ]);
    expect(p.read('API-CHANGES.md')).toBe(log);
    // The newest release may be named again: the run adds to it.
    expect((await p.generate('--release', 'v2.0')).code).toBe(0);
    expect([...p.read('API-CHANGES.md').matchAll(/^## (.*)$/gm)].map((m) => m[1])).toEqual(['v2.0', 'v1.1']);
  });

  it('prints the compatible changes as a list, not as diagnostics', async () => {
    const run = await project(addColor).generate();
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('svcgen: the API changes for clients (compatible):');
    expect(run.stderr).toContain('Item.color');
    expect(run.stderr).not.toContain('SVC3111');
    // With --format json, stdout stays one JSON array (the diagnostics); the list is on stderr.
    const json = await project(addColor).generate('--format', 'json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([]);
    // Beside breaking changes, the list says they follow: "(compatible)" above errors read as the run's.
    const both = await project((a) => {
      addColor(a);
      dropPatch(a);
    }).generate();
    expect(both.stderr).toContain(
      'svcgen: the API changes for clients (compatible; the breaking ones follow, as diagnostics):',
    );
    expect(json.stderr).toContain('Item.color');
  });

  it('--check reports a breaking change the out-dir does not record', async () => {
    const p = project(dropPatch);
    const run = await p.generate('--check');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error SVC3111: breaks clients: PATCH /items/{id}: method removed');
    expect(run.stderr).toContain('API-CHANGES.md does not record it');
    // …and lists what is out of date with it, as for any other change.
    expect(run.stdout).toContain('openapi.json');
    expect(p.has('API-CHANGES.md')).toBe(false);
    // Recorded (and written): up to date.
    expect((await p.generate('--allow-breaking')).code).toBe(0);
    const check = await p.generate('--check');
    expect(check.code, check.stderr).toBe(0);
    expect(check.stderr).toContain('is up to date');
  });

  it('--check on a compatible change: out of date, with no breaking change to report', async () => {
    const run = await project(addColor).generate('--check');
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('SVC3111');
    expect(run.stdout).toContain('API-CHANGES.md');
    // The new migration is listed with its statements, for whoever reviews the change.
    expect(run.stdout).toMatch(/ {2}add {6}src\/db\/migrations\/0002_add_item_color\.ts\n/);
    expect(run.stdout).toContain('alter table "item" add column "color"');
  });

  it('says a field renamed with renamed_from is renamed for clients, located at the field', async () => {
    const p = project((a) => {
      a.item.properties['remark'] = { type: ['string', 'null'], _db_settings: { type: 'text', renamed_from: 'note' } };
      delete a.item.properties['note'];
    });
    const run = await p.generate();
    expect(run.code).toBe(1);
    // One error for the one rename, wherever clients meet the field: answers, bodies, its filters.
    const errors = [...run.stderr.matchAll(/(\S+):(\d+):\d+ - error (SVC\d+): (.*)/g)];
    expect(errors.map((m) => m[3])).toEqual(['SVC3111']);
    expect(errors[0]![4]).toMatch(
      /^breaks clients: Item\.note renamed to remark \(renamed_from keeps the stored data, but the name clients use changed\): answers \(GET \/items, .*\), request bodies \(.*POST \/items.*\), filters \(GET \/items\)/,
    );
    expect(run.stderr).toContain('keep note in the API too');
    // At the field's new name, where the rename is written (not the schema's `properties`).
    const schema = readFileSync(join(p.dir, 'api/item.json'), 'utf8').split('\n');
    const remarkLine = schema.findIndex((line) => line.includes('"remark"')) + 1;
    expect([errors[0]![1], Number(errors[0]![2])]).toEqual(['api/item.json', remarkLine]);
    expect(run.stderr).not.toContain('SVC3101');
  });

  it("says a field made required where the schema's required array names it (a backref's field is declared in another schema)", async () => {
    const p = project((a) => void a.item.required.push('note'));
    const run = await p.generate();
    expect(run.code).toBe(1);
    const errors = [...run.stderr.matchAll(/(\S+):(\d+):\d+ - error (SVC\d+): (.*)/g)];
    expect(errors.map((m) => [m[3], m[4]])).toContainEqual([
      'SVC3111',
      expect.stringMatching(/note \(POST \/items\): request field made required/),
    ]);
    const schema = readFileSync(join(p.dir, 'api/item.json'), 'utf8').split('\n');
    const inRequired = schema.findIndex((line) => line.trim() === '"note"') + 1;
    expect(inRequired).toBeGreaterThan(0);
    const made = errors.find((m) => /made required/.test(m[4]!))!;
    expect([made[1], Number(made[2])]).toEqual(['api/item.json', inRequired]);
  });

  it('says of a shorter max_length only what its migration does: it checks the stored values (no SVC3113)', async () => {
    const shorter = (a: ApiSource) =>
      void (a.item.properties['name'] = {
        type: 'string',
        _db_settings: { type: 'string', required: true, max_length: 60 },
      });
    const run = await project(shorter).generate('--allow-breaking', '--allow-data-loss');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('a value that does not fit makes the migration fail');
    expect(run.stderr).not.toContain('SVC3113');
    // A lower maximum of a number changes no column: stored values stay as they are, and SVC3113 says so.
    const lower = (a: ApiSource) =>
      void (a.item.properties['price'] = {
        type: ['integer', 'null'],
        _db_settings: { type: 'integer', max_value: 10 },
      });
    const kept = await project(lower).generate('--allow-breaking');
    expect(kept.stderr).toContain('warning SVC3113: Item.price');
  });

  it('says a decimal made an integer once where clients meet it: not again as its bounds, nor as values kept (SVC3113)', async () => {
    const rate = (db: Record<string, unknown>) => (a: ApiSource) =>
      void (a.item.properties['rate'] = { type: ['number', 'null'], _db_settings: db });
    const p = project(rate({ type: 'decimal', scale: 2 }));
    expect((await p.generate()).code).toBe(0);
    p.edit(rate({ type: 'integer' }));
    const run = await p.generate('--allow-breaking', '--allow-data-loss');
    expect(run.code, run.stderr).toBe(0);
    const codes = [...run.stderr.matchAll(/ - warning (SVC\d+): (.*)/g)].map((m) => `${m[1]}: ${m[2]!.slice(0, 60)}`);
    // The filters (GET /items) and the two bodies: the type's narrowing, without the ±2³¹ it brings.
    expect(
      codes.filter((c) => c.startsWith('SVC3111')),
      run.stderr,
    ).toHaveLength(3);
    expect(run.stderr).not.toContain('constraint tightened');
    // The migration converts every stored rate and fails on one that does not fit: none is kept outside.
    expect(codes.filter((c) => c.startsWith('SVC3101'))).toHaveLength(1);
    expect(run.stderr).not.toContain('SVC3113');
  });

  it('compares a renamed field with the field whose values it takes: two that swap names are no narrowing (no SVC3113)', async () => {
    const bounds = (swapped: boolean) => (a: ApiSource) => {
      const low = { type: ['number', 'null'], _db_settings: { type: 'float' } };
      const high = { type: ['integer', 'null'], _db_settings: { type: 'integer', max_value: 100 } };
      a.item.properties['low'] = swapped
        ? { ...high, _db_settings: { ...high._db_settings, renamed_from: 'high' } }
        : low;
      a.item.properties['high'] = swapped
        ? { ...low, _db_settings: { ...low._db_settings, renamed_from: 'low' } }
        : high;
    };
    const p = project(bounds(false));
    expect((await p.generate()).code).toBe(0);
    p.edit(bounds(true));
    const run = await p.generate('--allow-breaking');
    expect(run.code, run.stderr).toBe(0);
    // Clients see each name change its type (SVC3111); the stored values each field takes fit it.
    expect(run.stderr).toContain('SVC3111');
    expect(run.stderr).not.toContain('SVC3113');
  });

  // A probe's `result`, renamed `outcome` as it became a choice list: its stored "pending" stayed, unsaid.
  it('says of a field renamed as it narrows what it says of one that only narrows (SVC3113)', async () => {
    const grade = (renamed: boolean) => (a: ApiSource) => {
      delete a.item.properties['grade'];
      delete a.item.properties['outcome'];
      a.item.properties[renamed ? 'outcome' : 'grade'] = {
        type: ['string', 'null'],
        _db_settings: renamed
          ? { type: 'choice', choices: ['pass', 'fail'], renamed_from: 'grade' }
          : { type: 'string' },
      };
    };
    const p = project(grade(false));
    expect((await p.generate()).code).toBe(0);
    p.edit(grade(true));
    const run = await p.generate('--allow-breaking', '--allow-data-loss');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('warning SVC3113: Item.outcome');
    expect(run.stderr).toContain('?outcome__ne=<every value still allowed, comma-separated> lists them');
  });

  it('says how to find the objects that keep a choice taken away (a filter by it is refused)', async () => {
    const tiers = (choices: string[]) => (a: ApiSource) =>
      void (a.item.properties['tier'] = {
        type: ['string', 'null'],
        _db_settings: { type: 'choice', choices },
      });
    const p = project(tiers(['gold', 'silver', 'bronze']));
    expect((await p.generate()).code).toBe(0);
    p.edit(tiers(['gold', 'silver']));
    const narrowed = await p.generate('--allow-breaking');
    expect(narrowed.stderr).toContain('warning SVC3113: Item.tier');
    expect(narrowed.stderr).toContain('?tier__ne=<every value still allowed, comma-separated> lists them');
  });

  it('says a removed field once, with every place clients meet it, located at the schema`s properties', async () => {
    const p = project((a) => void delete a.item.properties['note']);
    const run = await p.generate('--allow-data-loss');
    expect(run.code).toBe(1);
    const errors = [...run.stderr.matchAll(/(\S+):(\d+):\d+ - error (SVC\d+): (.*)/g)];
    expect(errors.map((m) => m[3])).toEqual(['SVC3111']);
    expect(errors[0]![4]).toMatch(
      /^breaks clients: Item\.note removed: answers \(GET \/items, .*\), request bodies \(.*POST \/items.*\), filters \(GET \/items\)/,
    );
    expect(errors[0]![1]).toBe('api/item.json');
  });

  it('does not crash on an openapi.json broken by hand: a located warning, and the edit is not overwritten', async () => {
    const p = project(dropPatch);
    writeFileSync(join(p.dir, 'out/openapi.json'), '{ "paths": ');
    const run = await p.generate();
    expect(run.stderr).toMatch(
      /out\/openapi\.json:1:1 - warning SVC3112: cannot tell what changes for clients: openapi\.json is not JSON/,
    );
    expect(run.stderr).toContain('SVC3005');
    expect(run.code).toBe(1);
    expect(p.read('openapi.json')).toBe('{ "paths": ');
    const forced = await p.generate('--force');
    expect(forced.code).toBe(0);
    expect(JSON.parse(p.read('openapi.json'))).toHaveProperty('paths');
  });

  it('takes an openapi.json that is JSON but no OpenAPI document as nothing to compare with', async () => {
    const p = project(dropPatch);
    writeFileSync(join(p.dir, 'out/openapi.json'), '[1, 2]');
    const run = await p.generate('--force');
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'warning SVC3112: cannot tell what changes for clients: openapi.json is not a JSON object',
    );
  });
});

describe('an API before its first release (version 0)', () => {
  const preRelease = (a: ApiSource) => void (a.raml = edited(a.raml, 'version: v1\n', 'version: v0\n'));
  const release = (a: ApiSource) => void (a.raml = edited(a.raml, 'version: v0\n', 'version: v1\n'));

  it('lists its breaking changes with the compatible ones and writes them, until version 1', async () => {
    const p = project(preRelease);
    expect((await p.generate()).code).toBe(0);
    p.edit(dropPatch);
    p.edit(addColor);
    const run = await p.generate();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('SVC3111');
    expect(run.stderr).toContain(
      'svcgen: the API changes for clients (version v0 of the contract is a pre-release: what breaks its clients is not refused before version 1):\n  breaking   PATCH /items/{id}: method removed\n',
    );
    expect(run.stderr).toMatch(/\n {2}compatible Item\.color/);
    expect(JSON.parse(p.read('openapi.json')).paths['/items/{id}']).not.toHaveProperty('patch');
    // Clients are still told, under one entry however many runs it takes.
    expect(p.read('API-CHANGES.md')).toContain('### Breaking\n\n- `PATCH /items/{id}`: method removed');
    // Released: the breaking changes since version 0 are written, the next ones refused.
    p.edit(release);
    p.edit((a) => void (a.raml = edited(a.raml, '    delete:\n', '')));
    const released = await p.generate();
    expect(released.code, released.stderr).toBe(0);
    expect(released.stderr).toContain('breaking   DELETE /items/{id}: method removed');
    p.edit((a) => void (a.raml = edited(a.raml, '    /parts:\n      get:\n', '')));
    const after = await p.generate();
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('error SVC3111: breaks clients: GET /items/{id}/parts: route removed');
    // At the resource above it, which is still there.
    const line = readFileSync(join(p.dir, 'api/api.raml'), 'utf8').split('\n').indexOf('  /{id}:') + 1;
    expect(after.stderr).toMatch(
      new RegExp(`api\\.raml:${line}:\\d+ - error SVC3111: breaks clients: GET /items/\\{id\\}/parts`),
    );
  });

  it('says a field left out of search where its "search": false is written, not at the route that reads it', async () => {
    const p = project((a) => {
      a.item.properties['note'] = { ...a.item.properties['note'], _db_settings: { type: 'text', search: false } };
    });
    const run = await p.generate();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/item\.json:\d+:\d+ - error SVC3111: breaks clients: .*_search_fields/);
  });

  it('says a renamed resource where the new one is, and asks whether the old one moved there', async () => {
    const p = project((a) => void (a.raml = edited(a.raml, '/items:\n', '/articles:\n')));
    const run = await p.generate();
    expect(run.code).toBe(1);
    const lines = readFileSync(join(p.dir, 'api/api.raml'), 'utf8').split('\n');
    const [top, item] = [lines.indexOf('/articles:') + 1, lines.indexOf('  /{id}:') + 1];
    expect(run.stderr).toMatch(
      new RegExp(`api\\.raml:${top}:\\d+ - error SVC3111: breaks clients: GET /items: route removed`),
    );
    expect(run.stderr).toMatch(
      new RegExp(`api\\.raml:${item}:\\d+ - error SVC3111: breaks clients: GET /items/\\{id\\}: route removed`),
    );
    expect(run.stderr).toContain('did it move to /articles/{id}/parts?');
  });

  it('tells of the routes a new version moves (baseUri /api/{version}): listed before 1, refused after', async () => {
    const versioned = (version: string) => (a: ApiSource) =>
      void (a.raml = edited(
        a.raml,
        /version: v\d+\n/.exec(a.raml)![0],
        `baseUri: http://{host}/api/{version}\nversion: ${version}\n`,
      ));
    // From the base project's released contract (no base path): itself a move, allowed.
    const p = project(versioned('v0'));
    expect((await p.generate('--allow-breaking')).code).toBe(0);
    p.edit((a) => void (a.raml = edited(a.raml, 'version: v0\n', 'version: v1\n')));
    const released = await p.generate('--release', 'v1');
    expect(released.code, released.stderr).toBe(0);
    expect(released.stderr).toContain('breaking   base path changed — /api/v0 → /api/v1: every route moved');
    expect(p.read('API-CHANGES.md')).toMatch(/## v1\n\n### Breaking\n\n- base path changed — \/api\/v0 → \/api\/v1/);
    p.edit((a) => void (a.raml = edited(a.raml, 'version: v1\n', 'version: v2\n')));
    const moved = await p.generate();
    expect(moved.code).toBe(1);
    expect(moved.stderr).toContain('error SVC3111: breaks clients: base path changed — /api/v1 → /api/v2');
    // At the version that moved it.
    const line = readFileSync(join(p.dir, 'api/api.raml'), 'utf8').split('\n').indexOf('version: v2') + 1;
    expect(moved.stderr).toMatch(
      new RegExp(`api\\.raml:${line}:10 - error SVC3111: breaks clients: base path changed`),
    );
  });

  it('says how in the error of a released API', async () => {
    const run = await project(dropPatch).generate();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('can say `version: v0` (a pre-release)');
  });

  it('is what svcgen diff reads from the older side: no exit 1 for breaking a pre-release', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcgen-diff-'));
    const old = baseApi();
    preRelease(old);
    writeApi(old, join(dir, 'old'));
    const next = baseApi();
    preRelease(next);
    dropPatch(next);
    writeApi(next, join(dir, 'new'));
    const run = await runCli(['diff', 'old/api.raml', 'new/api.raml'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('breaking   PATCH /items/{id}: method removed');
    expect(run.stderr).toContain('1 breaking, 0 compatible (version v0 of the contract is a pre-release');
    // A CI gate from the first day (a new user's passed on 10 breaking changes of a v0 API, unsaid by --help).
    const strict = await runCli(['diff', '--strict', 'old/api.raml', 'new/api.raml'], dir);
    expect([strict.code, strict.stderr]).toEqual([1, 'svcgen diff: 1 breaking, 0 compatible\n']);
    const released = await runCli(['diff', 'new/api.raml', 'old/api.raml'], dir);
    expect(released.code).toBe(0);
    release(old);
    writeApi(old, join(dir, 'old'));
    expect((await runCli(['diff', 'old/api.raml', 'new/api.raml'], dir)).code).toBe(1);
  });
});

describe('svcgen diff on bad input', () => {
  it('exits 2 when a side cannot be read or is not an OpenAPI document', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcgen-diff-'));
    writeApi(baseApi(), join(dir, 'api'));
    writeFileSync(join(dir, 'list.json'), '[]');
    writeFileSync(join(dir, 'broken.json'), '{');
    writeFileSync(join(dir, 'bad.raml'), '#%RAML 0.8\n---\ntitle: [\n');
    for (const [old, next, said] of [
      ['missing.json', 'api/api.raml', 'cannot read missing.json'],
      ['api/api.raml', 'list.json', 'list.json is not an OpenAPI document'],
      ['broken.json', 'api/api.raml', 'cannot read broken.json'],
      ['bad.raml', 'api/api.raml', 'bad.raml has errors'],
    ] as const) {
      const run = await runCli(['diff', old, next], dir);
      expect(run.code, `${old} ${next}`).toBe(2);
      expect(run.stderr).toContain(said);
      expect(run.stdout).toBe('');
    }
  });

  it('compares an api.raml with an openapi.json, and one version with itself', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcgen-diff-'));
    writeApi(baseApi(), join(dir, 'api'));
    const same = await runCli(['diff', join(base, 'out/openapi.json'), 'api/api.raml', '--format', 'json'], dir);
    expect(same.code).toBe(0);
    expect(JSON.parse(same.stdout)).toEqual([]);
    expect(same.stderr).toContain('no changes for clients');
  });
});
