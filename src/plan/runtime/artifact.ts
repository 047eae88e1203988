/**
 * The runtime every project carries, copied as it is (runtime/): the library under src/lib/, the
 * server's entry points, the tests' helpers and the project's settings files. Projects without
 * authentication get no part of it that only authentication uses.
 */
import { planned, type Artifact } from '../artifact.js';
import { staticTemplates } from './files.js';

/** Runtime and test files that only APIs with authentication get (they need argon2 and @fastify/cookie). */
const AUTH_ONLY = ['src/lib/auth/', 'test/acl-helpers.ts', 'client/src/auth.ts'];

export const runtime: Artifact = {
  name: 'runtime',
  files: ({ ir }) =>
    staticTemplates()
      .filter((file) => ir.auth || !AUTH_ONLY.some((prefix) => file.path.startsWith(prefix)))
      .map((file) => planned(file.path, purposeOf(file.path), { kind: 'static', content: file.content })),
};

function purposeOf(path: string): string {
  if (path.startsWith('src/lib/')) return 'Part of the service runtime, the same in every generated service.';
  if (path.startsWith('test/')) return 'Test helpers.';
  if (path.startsWith('client/')) return 'Part of the typed client, the same in every generated project.';
  return '';
}
