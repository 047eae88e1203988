/**
 * The generated README's script of one's own, as written there: copied from the README into
 * `src/custom/`, compiled with the project, and run with `node` against the database the
 * settings name, on every engine. It reads what the service wrote. (A probe found no word on how
 * a script reads the database, and copied what src/db/migrate.ts does.)
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase } from '../support/databases.js';
import { raml } from '../support/files.js';
import { openProjectDatabase, projectOf, tool } from '../support/project.js';

const API = raml(`title: Shows
/shows:
  get:
  post:
    body:
      application/json:
        schema: !include show.json
`);

const SHOW = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    title: { _db_settings: { type: 'string', required: true } },
  },
});

interface Db {
  show: { create(args: { data: { title: string } }): Promise<unknown> };
  close(): Promise<void>;
}

let dir: string;

beforeAll(async () => {
  dir = await projectOf({ 'api.raml': API, 'show.json': SHOW }, 'e2e-own-script');
  const readme = readFileSync(join(dir, 'README.md'), 'utf8');
  const script = /A script of your own[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(script, 'the README shows a script').toBeDefined();
  writeFileSync(join(dir, 'src/custom/report.ts'), script!);
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

describe.each(ENGINES)("the README's own script, on %s", (engine) => {
  it('reads the database the settings name, and ends', async () => {
    const database = await testDatabase(engine, dir, 'own_script');
    try {
      const db = await openProjectDatabase<Db>(dir, database.env);
      await db.show.create({ data: { title: 'Night Shift' } });
      await db.close();
      const run = await execa(process.execPath, [join(dir, 'dist/custom/report.js')], {
        cwd: dir,
        env: { ...database.env, SVC_CONFIG: join(dir, 'none.ini') },
        reject: false,
        all: true,
        timeout: 60_000,
      });
      expect(run.exitCode, run.all).toBe(0);
      expect(run.stdout).toContain("title: 'Night Shift'");
    } finally {
      await database.drop();
    }
  });
});

describe("the README's own script, run from another folder", () => {
  it("reads the project's service.ini and its database, where it once made an empty one where it ran", async () => {
    appendFileSync(join(dir, 'service.ini'), '\ndatabase.url = sqlite:./data/from-ini.db\n');
    const db = await openProjectDatabase<Db>(dir, { SVC_DATABASE_URL: `sqlite:${join(dir, 'data/from-ini.db')}` });
    await db.show.create({ data: { title: 'Morning Show' } });
    await db.close();
    const elsewhere = mkdtempSync(join(tmpdir(), 'svcgen-own-script-'));
    const run = await execa(process.execPath, [join(dir, 'dist/custom/report.js')], {
      cwd: elsewhere,
      env: { PATH: process.env['PATH'] ?? '' },
      extendEnv: false,
      reject: false,
      all: true,
      timeout: 60_000,
    });
    expect(run.exitCode, run.all).toBe(0);
    expect(run.stdout).toContain("title: 'Morning Show'");
    expect(existsSync(join(elsewhere, 'data'))).toBe(false);
  }, 120_000);
});
