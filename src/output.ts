/**
 * The generated project as a value, the hand-off from generating to writing: each file with its
 * owner and content, and the content hashes that tell whether a file on disk is as svcgen wrote
 * it. Shared by plan (who owns each file), generate.ts (which produces the tree) and write/
 * (which puts it on disk).
 */
import { createHash } from 'node:crypto';

/**
 * Who owns an emitted file: svcgen regenerates `generated` files; `user` files (event-handler
 * stubs, service.ini) are created once and never changed; `migration` files are written once and
 * kept forever.
 */
export type Owner = 'generated' | 'user' | 'migration';

export interface OutputFile {
  readonly path: string;
  readonly owner: Owner;
  readonly content: string;
  /** For rendered files: a hash of the rendering before formatting (same rendering, same content). */
  readonly source?: string;
}

/** The generated project, by path, in path order. */
export type OutputTree = ReadonlyMap<string, OutputFile>;

/** What an earlier run wrote, offered for reuse where it cannot have changed. */
export interface PreviousOutput {
  /** The whole earlier tree, when it was generated from `inputKey` and is on disk as written. */
  tree(inputKey: string): OutputTree | undefined;
  /** A file's earlier content, when it came from the same rendering (`source`) and is on disk as written. */
  file(path: string, owner: Owner, source: string): string | undefined;
}

export function contentHash(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}
