/**
 * `.svcgen/manifest.json` in the out-dir: every file svcgen wrote and its owner;
 * for generated files the hash of what svcgen wrote (it tells an edited generated file from an
 * unedited one, and a stale generated file from a user's own) and the hash of its rendering;
 * and the key of the input the tree was generated from (write/previous.ts reuses the tree when
 * the key is the same).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contentHash, type Owner, type OutputTree } from '../output.js';

export const MANIFEST_PATH = '.svcgen/manifest.json';

export interface ManifestEntry {
  readonly owner: Owner;
  /** Generated files: the hash of the content svcgen wrote. */
  readonly sha256?: string;
  /** Rendered generated files: the hash of the rendering, before formatting. */
  readonly source?: string;
  /** A user-owned file the API no longer refers to (kept, reported on every run). */
  readonly unused?: true;
}

export interface Manifest {
  readonly generator: 'svcgen';
  readonly raml: string;
  readonly input?: string;
  readonly files: Readonly<Record<string, ManifestEntry>>;
}

/** The manifest of a previous run, read from the real out-dir; null when there is none. */
export function readManifestText(realOut: string): string | null | Error {
  try {
    return readFileSync(join(realOut, MANIFEST_PATH), 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : (error as Error);
  }
}

/**
 * The manifest after writing `tree`, generated from `input`. User-owned files the API no longer
 * refers to (`unused`) stay in it, so every later run reports them until the user deletes them.
 */
export function manifestOf(tree: OutputTree, raml: string, input: string, unused: readonly string[] = []): Manifest {
  const files: Record<string, ManifestEntry> = {};
  for (const file of tree.values()) {
    files[file.path] =
      file.owner === 'user'
        ? { owner: 'user' }
        : { owner: file.owner, sha256: contentHash(file.content), ...(file.source ? { source: file.source } : {}) };
  }
  for (const path of unused) files[path] = { owner: 'user', unused: true };
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { generator: 'svcgen', raml, input, files: sorted };
}

export function manifestText(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
