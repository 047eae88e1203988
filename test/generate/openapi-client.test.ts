/**
 * The document works with the typed clients users make (issue 32): for every fixture,
 * openapi-typescript's types and openapi-fetch calls that a client author would write — a sorted
 * and filtered list, a PATCH with If-Match, a free-form body, logging in — type-check under
 * `--strict`, and calls the document does not allow are refused (support/openapi-client.ts).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { astToString, openapiTS } from 'openapi-typescript-on-typescript-5';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientCalls, type Feature } from '../support/openapi-client.js';
import { servedDocuments } from '../support/openapi-tools.js';
import { repoRoot } from '../support/paths.js';

/** Inside the repository, so that `openapi-fetch` resolves from its node_modules. */
const dir = join(repoRoot, '.tmp', 'openapi-clients');
const documents = [...servedDocuments()].filter(([name]) => !name.endsWith('.no-auth'));
const features = new Map<string, readonly Feature[]>();
let typecheck: { exitCode: number | undefined; stdout: string };

beforeAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  for (const [fixture, document] of documents) {
    const folder = join(dir, fixture);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'schema.d.ts'), astToString(await openapiTS(document as never)));
    const calls = clientCalls(document);
    writeFileSync(join(folder, 'client.ts'), calls.code);
    features.set(fixture, calls.features);
  }
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['es2022', 'dom'],
        types: [],
        noUncheckedIndexedAccess: true,
        // The types' own (openapi-fetch's) are checked by their authors.
        skipLibCheck: true,
      },
      include: ['*/client.ts'],
    }),
  );
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const result = await execa(join(repoRoot, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')], {
    reject: false,
    all: true,
  });
  typecheck = { exitCode: result.exitCode, stdout: result.all ?? '' };
}, 240_000);

describe('a client made with openapi-typescript and openapi-fetch', () => {
  it('type-checks under --strict, for every fixture, and refuses what the document does not allow', () => {
    expect(typecheck.stdout).toBe('');
    expect(typecheck.exitCode).toBe(0);
  });

  it('calls a sorted and filtered list and a PATCH with If-Match in every fixture', () => {
    for (const [fixture] of documents)
      expect(features.get(fixture), fixture).toEqual(expect.arrayContaining(['list', 'If-Match']));
  });

  it('sends a free-form body where an API has one, and logs in where it has auth', () => {
    expect(features.get('ramses-example')).toEqual(['list', 'If-Match', 'free-form body', 'auth']);
    expect(features.get('blog')).toEqual(['list', 'If-Match', 'free-form body', 'auth']);
    const withAuth = documents.filter(([, d]) => (d['components'] as Record<string, unknown>)['securitySchemes']);
    for (const [fixture] of withAuth) expect(features.get(fixture), fixture).toContain('auth');
  });
});
