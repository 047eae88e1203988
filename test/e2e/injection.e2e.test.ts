/**
 * Text from the API never becomes code: an API whose title, documentation, descriptions, enum
 * values, defaults and examples are payloads that would break out of a TypeScript string, template
 * literal or comment (or of an HTML page) and write a sentinel file. The project generates,
 * type-checks (strict), starts and serves; the sentinel never appears; and each payload comes back
 * as the same text where the service shows it (OpenAPI document, values, docs page).
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { writeTree } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { repoRoot } from '../support/paths.js';
import { linkDependencies, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const work = join(repoRoot, '.tmp', 'e2e-injection');
/** The base path is a payload too, as far as the router allows (a "*" is refused: SVC2027): a quote. */
const BASE = "/v1/it's";
const SENTINEL = join(work, 'SENTINEL');
const touch = `process.getBuiltinModule('fs').writeFileSync(${JSON.stringify(SENTINEL)}, 'x')`;

/** Ways out of a single- or double-quoted string, a template literal, a comment, a line, a script element, a template. */
const PAYLOADS = [
  `'); ${touch}; ('`,
  `"); ${touch}; ("`,
  `\\'); ${touch}; ('`,
  `\`); ${touch}; (\``,
  `\${${touch}}`,
  `*/ ${touch}; /*`,
  `// \r\n${touch}; //`,
  `a\n${touch};\n//`,
  `\u2028${touch};\u2029//`,
  `</script><script>${touch}</script>`,
  `{{${touch}}} {{{${touch}}}}`,
  '__proto__',
  'constructor',
];

/** YAML reads JSON: each scalar is written as a JSON string. */
const y = (text: string) => JSON.stringify(text);

function api(): string {
  const describe = (i: number) => `description: ${y(PAYLOADS[i % PAYLOADS.length]!)}`;
  const schema = {
    type: 'object',
    title: PAYLOADS[0],
    description: PAYLOADS.join(' '),
    required: ['id', 'name'],
    properties: {
      id: { type: ['integer', 'null'], _db_settings: { type: 'id_field', required: true, primary_key: true } },
      name: { type: 'string', description: PAYLOADS[5], _db_settings: { type: 'string', required: true } },
      note: {
        type: ['string', 'null'],
        description: PAYLOADS[4],
        default: PAYLOADS[3],
        _db_settings: { type: 'text', default: PAYLOADS[3] },
      },
      kind: { type: ['string', 'null'], enum: PAYLOADS, _db_settings: { type: 'choice', choices: PAYLOADS } },
    },
  };
  return [
    '#%RAML 0.8',
    '---',
    `title: ${y(PAYLOADS.join(' '))}`,
    "baseUri: http://example.com/{version}/it's",
    'version: v1',
    'mediaType: application/json',
    'documentation:',
    `  - title: ${y(PAYLOADS[9]!)}`,
    `    content: ${y(PAYLOADS.join('\n'))}`,
    'schemas:',
    `  - thing: ${y(JSON.stringify(schema))}`,
    '/things:',
    `  ${describe(1)}`,
    '  get:',
    `    ${describe(2)}`,
    '  post:',
    `    ${describe(3)}`,
    '    body:',
    '      application/json:',
    '        schema: thing',
    `        example: ${y(JSON.stringify({ name: PAYLOADS[6], kind: PAYLOADS[7] }))}`,
    '  /{id}:',
    `    ${describe(4)}`,
    '    get:',
    `      ${describe(5)}`,
    '    patch:',
    `      ${describe(6)}`,
    '',
  ].join('\n');
}

describe('an API made of injection payloads', () => {
  let dir: string;
  let database: TestDatabase;
  let service: RunningService;
  let client: Api;

  beforeAll(async () => {
    rmSync(work, { recursive: true, force: true });
    const source = writeTree({ 'api.raml': api() });
    dir = join(work, 'project');
    const generated = await runCli(['generate', join(source, 'api.raml'), '-o', dir], repoRoot);
    expect(generated.code, generated.stderr).toBe(0);
    await linkDependencies(dir);
    const typecheck = await tool(dir, 'tsc', ['-p', 'tsconfig.json', '--noEmit']);
    expect(typecheck.exitCode, typecheck.all).toBe(0);
    const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
    expect(build.exitCode, build.all).toBe(0);
    database = await testDatabase('sqlite', dir, 'injection');
    service = await startService(dir, database.env, BASE);
    client = apiClient(service.origin, BASE);
  }, 600_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('generates, type-checks and starts without running any of it', () => {
    expect(existsSync(SENTINEL)).toBe(false);
  });

  it('keeps every payload as text: in the OpenAPI document, in stored values, on the docs page', async () => {
    const document = (await client('GET', '/openapi.json')).body;
    expect(document.info.title).toBe(PAYLOADS.join(' '));
    expect(document.servers).toEqual([{ url: BASE, description: expect.stringContaining('full URL') }]);
    expect(document.paths['/things'].post.description).toBe(PAYLOADS[3]);
    for (const kind of PAYLOADS) {
      const created = await client('POST', '/things', { name: kind, kind });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({ name: kind, kind, note: PAYLOADS[3] });
      expect((await client('GET', `/things/${created.body.id}`)).body).toMatchObject({ name: kind, kind });
    }
    expect((await client('POST', '/things', { name: 'x', kind: `${PAYLOADS[0]} ` })).status).toBe(400);
    const page = await fetch(`${service.origin}${BASE}/docs`);
    expect(await page.text()).not.toContain('</script><script>process');
    expect(existsSync(SENTINEL)).toBe(false);
  });
});
