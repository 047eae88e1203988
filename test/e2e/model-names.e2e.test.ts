/**
 * Models named as what the generated project takes from its runtime in the modules that name every
 * model compile: src/db/index.ts and src/committed.ts import such a model under another name, and
 * the client renames its own helpers (`Page_`, `Filter_`, `Key_`), and so does the README's example
 * of the client (`ApiError_`); src/events.ts imports the runtime's `Event` as `HandlerEvent`, so a
 * model named Event with handlers compiles. (Names that would still clash
 * are SVC2077: the diagnostics catalogue.)
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { raml, writeTree } from '../support/files.js';
import { repoRoot } from '../support/paths.js';
import { linkDependencies, tool } from '../support/project.js';

const work = join(repoRoot, '.tmp', 'e2e-model-names');
/** `/configs` is `Config`, …: each name clashed in the generated TypeScript once. */
const RESOURCES = [
  // What src/db/index.ts and src/committed.ts import from the runtime.
  'configs',
  'promises',
  'databases',
  'service-databases',
  'service-events',
  'event-data',
  'subscribes',
  'change-data',
  'subscriber-contexts',
  // What the client's index takes from its generic modules, and its operator sets.
  'pages',
  'sorts',
  'filters',
  'selections',
  'search-queries',
  'list-queries',
  'keys',
  'https',
  'fetches',
  'api-errors',
  'field-errors',
  'status-bodies',
  'on-comparables',
  'on-lists',
  'on-texts',
];

const schema = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    title: { _db_settings: { type: 'string' } },
  },
});

/** `Event`, as a ticketing API names its events, with a handler and a processor: src/events.ts names both. */
const eventSchema = JSON.stringify({
  type: 'object',
  _event_handlers: { before_create: ['stamp_event'] },
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    title: { _processors: ['trim_title'], _db_settings: { type: 'string' } },
    enrollments: { _db_settings: { type: 'relationship', document: 'Enrollment', backref_name: 'event' } },
  },
});

/**
 * A create the tests' samples cannot fill: a required link (to an Event). test/samples.ts types its
 * sample with the link optional, and the generated tests link it to an Event they seed, or the
 * project's tests would neither compile nor pass.
 */
const enrollmentSchema = JSON.stringify({
  type: 'object',
  required: ['event_id'],
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    event_id: {
      _db_settings: { type: 'foreign_key', ref_document: 'Event', ref_column: 'event.id', ref_column_type: 'id_field' },
    },
    seat: { _db_settings: { type: 'string' } },
  },
});

/** With auth and an x-ACL, as most APIs have them: every module of the project is generated. */
function api(): string {
  const resources = RESOURCES.map(
    (name) =>
      `/${name}:\n  securedBy: [acl]\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include item.json\n  /{id}:\n    get:\n    patch:\n    delete:\n`,
  );
  return raml(`title: Names
securitySchemes:
  - ticket:
      type: x-Ticket
      settings:
        secret: auth_tkt_secret
  - acl:
      type: x-ACL
      settings:
        collection: allow everyone all
        item: allow everyone all
  - owned:
      type: x-ACL
      settings:
        collection: allow everyone all
        item: |
          allow {{owner}} all
          deny everyone all
securedBy: [ticket]
${resources.join('')}/events:
  securedBy: [acl]
  get:
  post:
    body:
      application/json:
        schema: !include event.json
/records:
  securedBy: [owned]
  get:
  post:
    body:
      application/json:
        schema: !include item.json
  /{id}:
    get:
/enrollments:
  securedBy: [acl]
  get:
  post:
    body:
      application/json:
        schema: !include enrollment.json
`);
}

describe('models named as the runtime names its own types', () => {
  let dir: string;

  beforeAll(async () => {
    rmSync(work, { recursive: true, force: true });
    const source = writeTree({
      'api.raml': api(),
      'item.json': schema,
      'event.json': eventSchema,
      'enrollment.json': enrollmentSchema,
    });
    dir = join(work, 'project');
    const generated = await runCli(['generate', join(source, 'api.raml'), '-o', dir], repoRoot);
    expect(generated.code, generated.stderr).toBe(0);
    await linkDependencies(dir);
  }, 300_000);

  it("compile, client, tests and the README's client example included", async () => {
    // The README's example of the typed client, as a user copies it (into test/, one folder down).
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    const example = /## The typed client[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain("import { ApiError_, createClient } from './client/dist/index.js';");
    // client/dist is client/src compiled (npm run build): the project's tsconfig checks it against the source.
    writeFileSync(join(dir, 'test', 'readme-example.ts'), example!.replace("'./client/dist/", "'../client/src/"));
    const typecheck = await tool(dir, 'tsc', ['-p', 'tsconfig.json', '--noEmit']);
    expect(typecheck.exitCode, typecheck.all).toBe(0);
  }, 300_000);

  it('run the generated tests of a model with a required link', async () => {
    const run = await tool(dir, 'vitest', ['run', 'test/api.test.ts', '-t', 'Enrollment']);
    expect(run.exitCode, run.all).toBe(0);
    expect(run.all).toMatch(/Tests\s+\d+ passed/);
  }, 300_000);
});
