/**
 * The generated README's script of one's own, as written there: copied from the README into
 * `src/custom/`, compiled with the project, and run with `node` against the database the
 * settings name, on every engine. It reads what the service wrote. (A probe found no word on how
 * a script reads the database, and copied what src/db/migrate.ts does.)
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

describe('a script that calls the service through the typed client', () => {
  it('is refused by npm run typecheck in src/, as the build refuses it, and runs from outside it', async () => {
    // The build compiles src/ alone: client/src is outside it. A new user's script there type-checked
    // with the whole project, then failed `npm run build`, and with it `npm start`.
    const inSrc = join(dir, 'src/custom/calls-api.ts');
    writeFileSync(inSrc, "import { createClient } from '../../client/src/index.js';\nvoid createClient;\n");
    const typecheck = () => execa('npm', ['run', 'typecheck'], { cwd: dir, reject: false, all: true });
    try {
      const refused = await typecheck();
      expect(refused.exitCode).not.toBe(0);
      expect(refused.all).toMatch(/TS6059[^\n]*client\/src/);
    } finally {
      rmSync(inSrc);
    }
    expect((await typecheck()).exitCode).toBe(0);
    // What the README says instead: a .mjs script that imports the built client.
    const built = await tool(dir, 'tsc', ['-p', 'client/tsconfig.json']);
    expect(built.exitCode, built.all).toBe(0);
    writeFileSync(
      join(dir, 'calls-api.mjs'),
      "import { createClient } from './client/dist/index.js';\nconsole.log(typeof createClient({ baseUrl: 'http://127.0.0.1:1/v1' }).shows.list);\n",
    );
    const run = await execa(process.execPath, ['calls-api.mjs'], { cwd: dir, reject: false, all: true });
    expect([run.exitCode, run.stdout], run.all).toEqual([0, 'function']);
  }, 120_000);
});
