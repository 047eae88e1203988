/**
 * `.svcgen/manifest.json` in the out-dir: every file svcgen wrote and its owner;
 * for generated files the hash of what svcgen wrote (it tells an edited generated file from an
 * unedited one, and a stale generated file from a user's own) and the hash of its rendering;
 * the key of the input the tree was generated from (outdir/previous.ts reuses the tree when
 * the key is the same); and the svcgen and the API it came from (provenance.ts). Read here (and checked, manifest-shape.ts); written by write/manifest.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contentHash, type Owner } from '../output.js';

export const MANIFEST_PATH = '.svcgen/manifest.json';
/** Held while a run writes the out-dir (lock.ts). */
export const LOCK_PATH = '.svcgen/lock';
/** The storage model a migration leads to, and the migrations (outdir/history.ts). */
export const STORAGE_FILE = 'src/db/storage.json';
export const MIGRATIONS_DIR = 'src/db/migrations';
/** A migration name: four digits and a slug (`0002_add_story_subtitle`). */
export const MIGRATION_NAME = /^(\d{4})_[a-z0-9_]+$/;

/** Whether `path` is where svcgen writes migrations: `src/db/migrations/0002_add_story_subtitle.ts`. */
export function isMigrationPath(path: string): boolean {
  const name =
    path.startsWith(`${MIGRATIONS_DIR}/`) && path.endsWith('.ts') ? path.slice(MIGRATIONS_DIR.length + 1, -3) : '';
  return MIGRATION_NAME.test(name);
}

export interface ManifestEntry {
  readonly owner: Owner;
  /** Generated files: the hash of the content svcgen wrote. */
  readonly sha256?: string;
  /** Rendered generated files: the hash of the rendering, before formatting. */
  readonly source?: string;
  /** A user-owned file the API no longer refers to (kept, reported on every run). */
  readonly unused?: true;
}

/** One svcgen: its version, and a fingerprint of its code (unreleased changes differ by it alone). */
export interface GeneratorStamp {
  readonly version: string;
  readonly build: string;
}

export interface Manifest {
  readonly generator: 'svcgen';
  /** The svcgen that wrote the files (provenance.ts); absent from a manifest of an older svcgen. */
  readonly svcgen?: GeneratorStamp;
  readonly raml: string;
  /** A digest of the API's files as written (provenance.ts). */
  readonly api?: string;
  readonly input?: string;
  /**
   * A digest of `files` as svcgen wrote them (`listDigest`): the earlier tree is reused only while
   * the list is as written (previous.ts). An entry added or taken out by hand made generate reuse a
   * tree that --check, which plans afresh, disagreed with.
   */
  readonly listed?: string;
  readonly files: Readonly<Record<string, ManifestEntry>>;
}

/** The digest of a manifest's file list, whatever order its keys were written in. */
export function listDigest(files: Readonly<Record<string, ManifestEntry>>): string {
  const rows = Object.keys(files)
    .sort()
    .map((path) => {
      const { owner, sha256, source, unused } = files[path]!;
      return [path, owner, sha256 ?? null, source ?? null, unused ?? false];
    });
  return contentHash(JSON.stringify(rows));
}

/** The manifest of a previous run, read from the real out-dir; null when there is none. */
export function readManifestText(realOut: string): string | null | Error {
  try {
    return readFileSync(join(realOut, MANIFEST_PATH), 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : (error as Error);
  }
}
