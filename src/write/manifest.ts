/** The manifest a run writes, of the tree it wrote (its shape: outdir/manifest.ts). */
import type { Manifest, ManifestEntry } from '../outdir/manifest.js';
import { contentHash, type OutputTree } from '../output.js';

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
