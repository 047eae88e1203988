/**
 * The promise that regeneration never loses user code: when the API changes, `tsc` in the generated project points at
 * exactly the user code that no longer fits, and nowhere else. The events fixture's stubs are
 * filled in (test/support/events-code.ts), then two fields those handlers use are removed.
 */
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { writeEventsCode } from '../support/events-code.js';
import { repoRoot } from '../support/paths.js';
import { linkDependencies, tool } from '../support/project.js';

const area = join(repoRoot, '.tmp', 'e2e-stale');
const api = join(area, 'api');
const out = join(area, 'out');

const generate = (...flags: string[]) => runCli(['generate', join(api, 'api.raml'), '-o', out, ...flags], area);
const typecheck = () => tool(out, 'tsc', ['--noEmit', '-p', 'tsconfig.json']);

function removeProperty(schema: string, name: string): void {
  const file = join(api, 'schemas', `${schema}.json`);
  const json = JSON.parse(readFileSync(file, 'utf8')) as { properties: Record<string, unknown> };
  if (!(name in json.properties)) throw new Error(`${schema}.json has no ${name}`);
  delete json.properties[name];
  writeFileSync(file, JSON.stringify(json, null, 4));
}

describe('a schema change that makes user code stale', () => {
  beforeAll(async () => {
    rmSync(area, { recursive: true, force: true });
    cpSync(join(repoRoot, 'fixtures', 'events'), api, { recursive: true });
    const run = await generate();
    if (run.code !== 0) throw new Error(run.stderr);
    await linkDependencies(out);
    writeEventsCode(out);
  }, 600_000);

  it('compiles before the change', async () => {
    const before = await typecheck();
    expect(before.exitCode, before.all).toBe(0);
  });

  it('after it, tsc fails in the two handlers that use the removed fields, and nowhere else', async () => {
    removeProperty('project', 'slug');
    removeProperty('user', 'active');
    // Removing fields drops their columns (a migration) and breaks clients that read them: written
    // only when the user allows both.
    const run = await generate('--allow-data-loss', '--allow-breaking');
    expect(run.code, run.stderr).toBe(0);
    // Added: the migration, and API-CHANGES.md recording what changed for clients.
    expect(run.stderr).toMatch(/2 added, [1-9]\d* changed/);
    expect(readFileSync(join(out, 'API-CHANGES.md'), 'utf8')).toContain('GET /projects query slug');
    expect(readdirSync(join(out, 'src/db/migrations'))).toEqual(['0001_initial.ts', '0002_project_user.ts']);
    const after = await typecheck();
    expect(after.exitCode).not.toBe(0);
    const errors = (after.all ?? '').split('\n').filter((line) => /error TS\d+/.test(line));
    const files = new Set(errors.map((line) => line.slice(0, line.indexOf('('))));
    expect(files).toEqual(new Set(['src/custom/handlers/set-slug.ts', 'src/custom/handlers/refuse-inactive.ts']));
    expect(errors.join('\n')).toMatch(/set-slug\.ts\(\d+,\d+\): error TS\d+: .*"slug"/);
    expect(errors.join('\n')).toMatch(/refuse-inactive\.ts\(\d+,\d+\): error TS\d+: .*'active'/);
  });
});
