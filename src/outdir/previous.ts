/**
 * What an earlier run left in the out-dir, as `generate` can reuse it (generate.ts): the files
 * the manifest records, read back only when they are still exactly what svcgen wrote. A
 * generated file that was edited or deleted is never reused; it is produced again. User-owned
 * files are the user's: their content on disk is what the tree holds for them. `outDir` is the
 * real out-dir.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  bearsGeneratedHeader,
  contentHash,
  type Owner,
  type OutputFile,
  type OutputTree,
  type PreviousOutput,
} from '../output.js';
import { listDigest, type Manifest } from './manifest.js';

export function previousOutput(outDir: string, manifest: Manifest | null): PreviousOutput | undefined {
  if (!manifest) return undefined;
  // Only paths the manifest records are read: those were checked to stay inside the out-dir
  // (write/paths.ts) before generating; the planned paths are checked after.
  const onDisk = (path: string, owner: Owner): string | undefined => {
    const recorded = manifest.files[path];
    if (!recorded || recorded.owner !== owner) return undefined;
    const content = readText(join(outDir, path));
    if (content === undefined) return undefined;
    if (owner === 'user') return content;
    // As planning would judge it (write/changes.ts): a file without its type's generated header is no generated file.
    const unmarked = owner === 'generated' && bearsGeneratedHeader(path, content) === false;
    return contentHash(content) === recorded.sha256 && !unmarked ? content : undefined;
  };
  return {
    tree(inputKey) {
      if (manifest.input !== inputKey || manifest.listed !== listDigest(manifest.files)) return undefined;
      const files: OutputFile[] = [];
      for (const [path, recorded] of Object.entries(manifest.files)) {
        if (recorded.unused) continue;
        const content = onDisk(path, recorded.owner);
        if (content === undefined) return undefined;
        files.push({ path, owner: recorded.owner, content, ...(recorded.source ? { source: recorded.source } : {}) });
      }
      return new Map(files.map((f) => [f.path, f])) satisfies OutputTree;
    },
    file(path, owner, source) {
      const recorded = manifest.files[path];
      return owner === 'user' || recorded?.source === source ? onDisk(path, owner) : undefined;
    },
  };
}

/** A file's text, or undefined when it cannot be read. */
export function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
