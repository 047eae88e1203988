/**
 * A project whose API has no authentication gets no `src/lib/auth/` (src/plan/runtime/artifact.ts,
 * `AUTH_ONLY`): the rest of the runtime imports nothing from it, not even a type, or such a
 * project does not compile (a type of the login names' claims, imported from there by
 * lib/http/services.ts, broke every API without auth until an end-to-end test built one).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/paths.js';

const LIB = join(repoRoot, 'runtime', 'src', 'lib');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('the runtime without authentication', () => {
  it('imports nothing of lib/auth/ outside it', () => {
    const outside = sources(LIB).filter((file) => !relative(LIB, file).startsWith('auth/'));
    expect(outside.length).toBeGreaterThan(20);
    const imports = outside.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)]
        .map((m) => m[1]!)
        .filter((path) => relative(LIB, join(file, '..', path)).startsWith('auth/'))
        .map((path) => `${relative(LIB, file)}: ${path}`),
    );
    expect(imports).toEqual([]);
  });
});
