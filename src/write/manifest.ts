/**
 * `.svcgen/manifest.json` in the out-dir (contract §1.1): every file svcgen wrote, its owner and,
 * for generated files, the hash of what svcgen wrote. It tells an edited generated file from an
 * unedited one, and a stale generated file from a user's own.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contentHash, type OutputTree } from '../generate.js';
import type { Owner } from '../render/header.js';

export const MANIFEST_PATH = '.svcgen/manifest.json';

export interface Manifest {
  readonly generator: 'svcgen';
  readonly raml: string;
  readonly files: Readonly<Record<string, { readonly owner: Owner; readonly sha256: string }>>;
}

/** The manifest of a previous run, or null (none, or unreadable: then every existing file counts as the user's). */
export function readManifest(outDir: string): Manifest | null {
  const file = join(outDir, MANIFEST_PATH);
  if (!existsSync(file)) return null;
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as Partial<Manifest>;
    return data.generator === 'svcgen' && data.files && typeof data.files === 'object' ? (data as Manifest) : null;
  } catch {
    return null;
  }
}

/**
 * The manifest after writing `tree`. User-owned files the API no longer refers to (`unused`)
 * stay in it, so every later run reports them until the user deletes them.
 */
export function manifestOf(tree: OutputTree, raml: string, unused: readonly string[] = [], previous: Manifest | null = null): Manifest {
  const files: Record<string, { owner: Owner; sha256: string }> = {};
  for (const file of tree.values()) files[file.path] = { owner: file.owner, sha256: contentHash(file.content) };
  for (const path of unused) if (previous?.files[path]) files[path] = previous.files[path];
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { generator: 'svcgen', raml, files: sorted };
}

export function manifestText(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
