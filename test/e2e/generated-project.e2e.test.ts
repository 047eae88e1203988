/**
 * Every golden tree type-checks under `strict` (`tsc --noEmit` in a copy of
 * snapshots/<fixture>/out with the runtime of runtime/), and the generated project's own test suite passes on SQLite, on
 * PostgreSQL and on MongoDB (svcgen's test server, or MONGO_URL). So do the suites of two more
 * fixtures' projects as generated, before any user code. The library's x-ACLs give members books
 * they may not change, bulk changes that the item rules refuse, a one-to-one link created below its
 * parent (`/books/{id}/featured_note`) and parents embedded in the answers of nested creates; the
 * workshop's tasks live only below projects and are hidden from all but their owner, so what lies
 * below them is their 404.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.js';
import { mongoServer } from '../support/mongodb.js';
import { postgresServer, queryPostgres } from '../support/postgres.js';
import { generatedProject, linkDependencies, tool } from '../support/project.js';
import { copyGoldenProject, SNAPSHOT_FIXTURES } from '../support/generated.js';

describe.each(SNAPSHOT_FIXTURES)('the generated %s project', (fixture) => {
  const copy = async () => {
    const dir = join(repoRoot, '.tmp', 'snapshot-projects', fixture);
    rmSync(dir, { recursive: true, force: true });
    await copyGoldenProject(fixture, dir);
    await linkDependencies(dir);
    return dir;
  };
  let project: Promise<string> | undefined;
  const projectDir = () => (project ??= copy());
  // Installing the dependencies takes minutes on a fresh machine: in a hook, not in a test's time.
  beforeAll(async () => void (await projectDir()));

  it('type-checks (tsc --noEmit, strict)', async () => {
    const result = await tool(await projectDir(), 'tsc', ['--noEmit']);
    expect(result.all).toBe('');
    expect(result.exitCode).toBe(0);
  });

  it('passes its own tests (npm test) on SQLite', async () => {
    const result = await tool(await projectDir(), 'vitest', ['run']);
    expect(result.exitCode, result.all).toBe(0);
    expect(result.all).toMatch(/Tests\s+\d+ passed/);
  });

  // Each of the project's tests creates a database and migrates it (tables, links and search
  // indexes): on a busy 2-core machine that takes longer than the default minute.
  const SERVER_SUITE_TIMEOUT = 180_000;

  it(
    'passes its own tests on PostgreSQL (TEST_DATABASE_URL)',
    async () => {
      const result = await tool(await projectDir(), 'vitest', ['run'], { TEST_DATABASE_URL: await postgresServer() });
      expect(result.exitCode, result.all).toBe(0);
      expect(result.all).toMatch(/Tests\s+\d+ passed/);
    },
    SERVER_SUITE_TIMEOUT,
  );

  it(
    'passes its own tests on MongoDB (TEST_DATABASE_URL=mongodb://…)',
    async () => {
      const result = await tool(await projectDir(), 'vitest', ['run'], { TEST_DATABASE_URL: await mongoServer() });
      expect(result.exitCode, result.all).toBe(0);
      expect(result.all).toMatch(/Tests\s+\d+ passed/);
    },
    SERVER_SUITE_TIMEOUT,
  );
});

describe.each(['library', 'workshop'])('the generated %s project, before any user code', (fixture) => {
  let project: Promise<string> | undefined;
  const projectDir = () => (project ??= generatedProject(fixture, `generated-${fixture}`));
  beforeAll(async () => void (await projectDir()));

  it('passes its own tests (npm test) on SQLite', async () => {
    const result = await tool(await projectDir(), 'vitest', ['run']);
    expect(result.exitCode, result.all).toBe(0);
    expect(result.all).toMatch(/Tests\s+\d+ passed/);
  });

  it('passes its own tests on PostgreSQL (TEST_DATABASE_URL), in databases named as TEST_DATABASE_PREFIX says', async () => {
    const server = await postgresServer();
    // A shared server's naming rule (a new-user probe could only make databases named p131_…).
    const prefix = `svcgen_${fixture}_`;
    const seen = new Set<string>();
    const dir = await projectDir();
    const watching = watchDatabases(dir, server, prefix, seen);
    const result = await tool(dir, 'vitest', ['run'], { TEST_DATABASE_URL: server, TEST_DATABASE_PREFIX: prefix });
    await watching.stop();
    expect(result.exitCode, result.all).toBe(0);
    expect(result.all).toMatch(/Tests\s+\d+ passed/);
    expect(seen.size, 'no database named with the prefix was seen while the tests ran').toBeGreaterThan(0);
    for (const name of seen) expect(name).toMatch(/^svcgen_[a-z]+_[0-9a-f]{12}$/);
    // Each is dropped after its test.
    expect(await databasesNamed(dir, server, prefix)).toEqual([]);
  }, 180_000);
});

describe('the generated project given a TEST_DATABASE_PREFIX a database name cannot start with', () => {
  it('fails its tests with a message that says what a prefix may hold', async () => {
    const dir = await generatedProject('library', 'generated-library');
    const result = await tool(dir, 'vitest', ['run', 'test/api.test.ts'], {
      TEST_DATABASE_URL: await postgresServer(),
      TEST_DATABASE_PREFIX: 'drop table;--',
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.all).toContain(
      'TEST_DATABASE_PREFIX="drop table;--": a database name\'s start must be a letter or _',
    );
  }, 180_000);
});

/** The names of the server's databases that start with `prefix` (letters, digits and `_`). */
async function databasesNamed(projectDir: string, server: string, prefix: string): Promise<string[]> {
  const rows = await queryPostgres(
    projectDir,
    server,
    `select datname from pg_database where starts_with(datname, '${prefix}') order by datname`,
  );
  return rows.map((row) => (row as { datname: string }).datname);
}

/** Every 50 ms until stopped, the databases named with `prefix` into `seen`. */
function watchDatabases(
  projectDir: string,
  server: string,
  prefix: string,
  seen: Set<string>,
): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const name of await databasesNamed(projectDir, server, prefix).catch(() => [])) seen.add(name);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

describe('the generated events project, with a processor that rewrites what it is sent', () => {
  // capitalize rewrites Task.title and User.display_name: the generated tests, which expect a
  // create's answer to hold what was sent, fail until test/custom-samples.ts (the user's) gives
  // values it keeps as they are. Before that file, nothing but editing generated tests made them pass.
  const CAPITALIZE = `import type { CapitalizeArgs } from '../../events.js';

export function capitalize({ new_value }: CapitalizeArgs): CapitalizeArgs['new_value'] {
  return typeof new_value === 'string' ? new_value.charAt(0).toUpperCase() + new_value.slice(1) : new_value;
}
`;
  const OVERRIDES = `import type { SampleOverrides } from './sample-overrides.js';

export const overrides: SampleOverrides = {
  samples: { Task: (n) => ({ title: \`Title-\${n}\` }), User: (n) => ({ display_name: \`Display-\${n}\` }) },
  changes: { Task: { title: 'Changed' }, User: { display_name: 'Changed' } },
};
`;

  it('keeps its own tests green once test/custom-samples.ts gives values the processor keeps', async () => {
    const dir = await generatedProject('events', 'generated-events-processor');
    writeFileSync(join(dir, 'src/custom/processors/capitalize.ts'), CAPITALIZE);
    const failing = await tool(dir, 'vitest', ['run', 'test/api.test.ts']);
    expect(failing.exitCode, failing.all).not.toBe(0);
    expect(failing.all).toMatch(/Title-1/);
    writeFileSync(join(dir, 'test/custom-samples.ts'), OVERRIDES);
    const passing = await tool(dir, 'vitest', ['run']);
    expect(passing.exitCode, passing.all).toBe(0);
    const typed = await tool(dir, 'tsc', ['--noEmit']);
    expect([typed.exitCode, typed.all]).toEqual([0, '']);
  }, 180_000);
});
