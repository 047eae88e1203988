/**
 * Installing a generated project's dependencies on the Node it claims (package.json `engines`,
 * the Dockerfile's node:20): npm says nothing about engines (no EBADENGINE), every installed
 * package accepts the oldest Node the project claims, and nothing phones home (swagger-ui-dist's
 * @scarf/scarf is told not to). The install is the one every e2e test uses
 * (scripts/project-deps.mjs), made from the generated package.json's dependencies, overrides and
 * settings.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installedDependencies } from '../../scripts/project-deps.mjs';
import { generateFixture } from '../support/generated.js';

const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string): boolean };

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly engines?: { readonly node?: string };
}

/** Every package installed under `modules`, nested ones too. */
function installedPackages(modules: string): Manifest[] {
  return readdirSync(modules, { withFileTypes: true }).flatMap((entry) => {
    if (!entry.isDirectory() || entry.name.startsWith('.')) return [];
    const dir = join(modules, entry.name);
    if (entry.name.startsWith('@')) return installedPackages(dir);
    const file = join(dir, 'package.json');
    if (!existsSync(file)) return [];
    const nested = join(dir, 'node_modules');
    return [
      JSON.parse(readFileSync(file, 'utf8')) as Manifest,
      ...(existsSync(nested) ? installedPackages(nested) : []),
    ];
  });
}

describe("a generated project's install", () => {
  it('claims the Node its dependencies run on, overrides cookie to one that runs there, and turns scarf off', async () => {
    const pkg = JSON.parse((await generateFixture('ramses-example')).get('package.json')!.content);
    expect(pkg.engines).toEqual({ node: '>=20.19' });
    expect(pkg.overrides).toEqual({ cookie: '^1.1.1' });
    expect(pkg.scarfSettings).toEqual({ enabled: false });
  });

  it('warns of no engine, and every package it installs runs on the oldest Node the project claims', async () => {
    const modules = await installedDependencies();
    const log = readFileSync(join(dirname(modules), 'install.log'), 'utf8');
    expect(log).not.toMatch(/EBADENGINE/);
    const oldest = '20.19.0';
    const packages = installedPackages(modules);
    expect(packages.map((p) => p.name)).toContain('@fastify/cookie');
    const refusing = packages
      .filter((p) => p.engines?.node !== undefined && !semver.satisfies(oldest, p.engines.node))
      .map((p) => `${p.name}@${p.version} (node ${p.engines!.node})`);
    expect(refusing).toEqual([]);
    const cookie = packages.find((p) => p.name === 'cookie')!;
    expect(cookie.version).toMatch(/^1\./);
  });
});
