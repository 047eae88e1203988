/** The manifest a run writes, of the tree it wrote (its shape: outdir/manifest.ts). */
import { listDigest, type GeneratorStamp, type Manifest, type ManifestEntry } from '../outdir/manifest.js';
import { contentHash, type OutputTree } from '../output.js';

/** What a tree was generated from: the input's key, the API's digest and the svcgen. */
export interface TreeOrigin {
  readonly raml: string;
  readonly input: string;
  readonly api: string;
  readonly svcgen: GeneratorStamp;
}

/**
 * The manifest after writing `tree`, generated from `origin`. User-owned files the API no longer
 * refers to (`unused`) stay in it, so every later run reports them until the user deletes them.
 */
export function manifestOf(tree: OutputTree, origin: TreeOrigin, unused: readonly string[] = []): Manifest {
  const files: Record<string, ManifestEntry> = {};
  for (const file of tree.values()) {
    files[file.path] =
      file.owner === 'user'
        ? { owner: 'user' }
        : { owner: file.owner, sha256: contentHash(file.content), ...(file.source ? { source: file.source } : {}) };
  }
  for (const path of unused) files[path] = { owner: 'user', unused: true };
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const { raml, input, api, svcgen } = origin;
  return { generator: 'svcgen', svcgen, raml, api, input, listed: listDigest(sorted), files: sorted };
}

export function manifestText(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
