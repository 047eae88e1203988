/**
 * What an out-dir was generated from: a digest of the API as written and the svcgen that
 * generated it, both recorded in the manifest. A `--check` that finds the out-dir out of date then
 * says whether the API changed, svcgen did, or both: a CI run that fails after an upgrade of
 * svcgen says so, where "out of date" alone sends the user looking for an API change.
 */
import { relative, sep } from 'node:path';
import type { SourceFile } from '../diagnostics/source.js';
import { contentHash } from '../output.js';
import { buildFingerprint, SVCGEN_VERSION } from '../version.js';
import type { GeneratorStamp, Manifest } from './manifest.js';

export function thisGenerator(): GeneratorStamp {
  return { version: SVCGEN_VERSION, build: buildFingerprint().slice(0, 12) };
}

/**
 * A digest of every file the API was read from (the RAML file, its includes, its schemas), each by
 * its path below the RAML file's folder: the same API moved elsewhere has the same digest.
 */
export function apiDigest(files: readonly SourceFile[], rootDir: string): string {
  const parts = files
    .map((file) => `${relative(rootDir, file.path).split(sep).join('/')}\0${file.text}`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return contentHash(parts.join('\0\0'));
}

/** Whether the API and svcgen are those the out-dir was generated from. */
export interface Provenance {
  readonly apiChanged: boolean;
  readonly generatorChanged: boolean;
  /** The svcgen that generated the out-dir. */
  readonly recorded: GeneratorStamp;
  readonly current: GeneratorStamp;
}

/** Undefined when the manifest records neither (none yet, or one of a svcgen that did not record them). */
export function provenanceOf(manifest: Manifest | null, api: string): Provenance | undefined {
  if (!manifest?.api || !manifest.svcgen) return undefined;
  const current = thisGenerator();
  return {
    apiChanged: manifest.api !== api,
    generatorChanged: manifest.svcgen.version !== current.version || manifest.svcgen.build !== current.build,
    recorded: manifest.svcgen,
    current,
  };
}
