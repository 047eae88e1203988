/**
 * The `svcgen init` starter as its README tells a user to finish it (issue 18): generate, paste
 * the README's two snippets into the handler and principal stubs, and the project type-checks,
 * builds, passes its own tests and serves: a notebook is owned by whoever created it, only the
 * owner changes it, and no one (the owner neither) writes who owns it.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { repoRoot } from '../support/paths.js';
import { linkDependencies, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/api/v0';

/** The ```ts blocks of the starter's README: the principal's, then the handler's. */
function readmeSnippets(readme: string): { principalImport: string; principalReturn: string; handler: string } {
  const [principal, handler] = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/^ {2}/gm, ''));
  const line = (prefix: string) => principal!.split('\n').find((l) => l.startsWith(prefix))!;
  return { principalImport: line('import '), principalReturn: line('return '), handler: handler! };
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${JSON.stringify(from)}`);
  writeFileSync(file, text.replace(from, to));
}

describe('the svcgen init starter, finished as its README says', () => {
  let service: RunningService;
  let database: TestDatabase;
  let api: Api;
  let dir: string;

  beforeAll(async () => {
    const root = join(repoRoot, '.tmp', 'e2e-init');
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    expect((await runCli(['init', 'notes'], root)).code).toBe(0);
    const generate = await runCli(['generate', 'api.raml', '-o', 'service'], join(root, 'notes'));
    expect(generate.code, generate.stderr).toBe(0);
    dir = join(root, 'notes', 'service');
    await linkDependencies(dir);

    const snippets = readmeSnippets(readFileSync(join(root, 'notes', 'README.md'), 'utf8'));
    const principal = join(dir, 'src/custom/principals/owner.ts');
    edit(
      principal,
      "import type { AclResult, AclRule, PrincipalWhere, RequestBy } from '../../lib/auth/index.js';",
      snippets.principalImport,
    );
    edit(principal, '  return undefined;', `  ${snippets.principalReturn}`);
    edit(
      join(dir, 'src/custom/handlers/set-owner.ts'),
      'export async function setOwner(event: SetOwnerEvent): Promise<void> {}',
      snippets.handler,
    );
  }, 300_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('type-checks (sources and tests) and builds', async () => {
    const check = await tool(dir, 'tsc', ['--noEmit', '-p', 'tsconfig.json']);
    expect(check.exitCode, check.all).toBe(0);
    const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
    expect(build.exitCode, build.all).toBe(0);
  }, 300_000);

  it('passes its own generated tests (every route, the ACL matrix)', async () => {
    const run = await tool(dir, 'vitest', ['run']);
    expect(run.exitCode, run.all).toBe(0);
  }, 300_000);

  it('serves: the creator owns a notebook and its notes; others may read but not change them', async () => {
    database = await testDatabase('sqlite', dir, 'init_starter');
    service = await startService(dir, { ...database.env, SVC_AUTH: 'true', SVC_AUTH_TKT_SECRET: 'x'.repeat(48) }, BASE);
    api = apiClient(service.origin, BASE);
    const cookieOf = async (username: string) => {
      const registered = await api('POST', '/auth/register', {
        username,
        email: `${username}@example.com`,
        password: 'a long enough password',
      });
      expect(registered.status, registered.text).toBe(201);
      return /^(notes_auth=[^;]+)/.exec(registered.headers.get('set-cookie')!)![1]!;
    };
    const alice = await cookieOf('alice');
    const bob = await cookieOf('bob');

    const notebook = await api('POST', '/notebooks', { name: 'Ideas' }, { headers: { cookie: alice } });
    expect(notebook.status, notebook.text).toBe(201);
    const id = (notebook.body as { id: number }).id;
    expect((await api('GET', `/notebooks/${id}`)).body).toMatchObject({ name: 'Ideas', owner: 'alice' });
    const note = await api(
      'POST',
      `/notebooks/${id}/notes`,
      { text: 'write the README' },
      { headers: { cookie: alice } },
    );
    expect(note.status, note.text).toBe(201);
    expect(note.body).toMatchObject({ owner: 'alice', notebook: id });
    // When a note was made is the service's to say (readOnly beside its {{now}} default).
    const backdated = await api(
      'POST',
      `/notebooks/${id}/notes`,
      { text: 'old news', created_at: '2001-01-01T00:00:00Z' },
      { headers: { cookie: alice } },
    );
    expect(backdated.status, backdated.text).toBe(403);

    expect((await api('PATCH', `/notebooks/${id}`, { name: 'Mine now' }, { headers: { cookie: bob } })).status).toBe(
      403,
    );
    expect((await api('PATCH', `/notebooks/${id}`, { name: 'Plans' }, { headers: { cookie: alice } })).status).toBe(
      200,
    );
    // Ownership is the handler's to set: neither a stranger nor the owner writes it (readOnly).
    for (const cookie of [bob, alice])
      expect((await api('PATCH', `/notebooks/${id}`, { owner: 'bob' }, { headers: { cookie } })).status).toBe(403);
    expect((await api('GET', `/notebooks/${id}`)).body).toMatchObject({ owner: 'alice' });
    expect((await api('GET', '/notes?q=readme')).body).toMatchObject({ total: 1 });
    // "Delete a notebook and its notes": the note's foreign key cascades.
    expect((await api('DELETE', `/notebooks/${id}`, undefined, { headers: { cookie: alice } })).status).toBe(200);
    const noteId = (note.body as { id: number }).id;
    expect((await api('GET', `/notes/${noteId}`, undefined, { headers: { cookie: alice } })).status).toBe(404);
  }, 120_000);
});

/**
 * The starter with the note's link to its notebook made required, as the generated README advises
 * for a link a handler needs: `POST /notebooks/{id}/notes` takes the link from the URL. It once took
 * no body at all (400 "notebook is required" without it, "is set by the URL" with it), and the
 * project's own typecheck and tests failed.
 */
describe('the svcgen init starter, with a required link below a nested route', () => {
  it('creates below the parent from the URL: the project type-checks and passes its own tests', async () => {
    const root = join(repoRoot, '.tmp', 'e2e-init-required-link');
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    expect((await runCli(['init', 'notes'], root)).code).toBe(0);
    edit(
      join(root, 'notes/schemas/note.json'),
      '"ref_ondelete": "CASCADE" }',
      '"ref_ondelete": "CASCADE", "required": true }',
    );
    const generate = await runCli(['generate', 'api.raml', '-o', 'service'], join(root, 'notes'));
    expect(generate.code, generate.stderr).toBe(0);
    const dir = join(root, 'notes', 'service');
    await linkDependencies(dir);
    const check = await tool(dir, 'tsc', ['--noEmit', '-p', 'tsconfig.json']);
    expect(check.exitCode, check.all).toBe(0);
    // Among them, POST /notebooks/{id}/notes with a sample that has no notebook: 201, linked to the URL's.
    const run = await tool(dir, 'vitest', ['run', 'test/api.test.ts', '--reporter=verbose']);
    expect(run.exitCode, run.all).toBe(0);
    expect(run.all).toMatch(/POST creates a Note: 201 with Location/);
    const document = JSON.parse(readFileSync(join(dir, 'openapi.json'), 'utf8')) as {
      paths: Record<
        string,
        { post: { requestBody: { content: Record<string, { schema: { required?: string[] }; example: object }> } } }
      >;
    };
    const body = document.paths['/notebooks/{id}/notes']!.post.requestBody.content['application/json']!;
    expect(body.schema.required ?? []).not.toContain('notebook');
    expect(body.example).not.toHaveProperty('notebook');
  }, 600_000);
});
