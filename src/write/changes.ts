/**
 * What writing the tree would do to the out-dir, decided before anything is
 * written: add, change, delete, keep — or refuse, for a generated file the user has edited or a
 * file svcgen did not write, from what the out-dir holds now (outdir/on-disk.ts).
 */
import { bearsGeneratedHeader, contentHash, type Owner, type OutputTree } from '../output.js';
import type { Manifest } from '../outdir/manifest.js';
import { UNREADABLE, type OnDisk } from '../outdir/on-disk.js';

/**
 * `conflict`: a generated file the user edited (not overwritten without --force);
 * `foreign`: a file svcgen would write that it did not write (not overwritten without --force);
 * `stale-edited`: a generated file no longer produced but edited (kept);
 * `unused`: a user-owned stub the API no longer refers to (kept, reported).
 */
export type ChangeKind = 'add' | 'change' | 'delete' | 'keep' | 'conflict' | 'foreign' | 'stale-edited' | 'unused';

export interface Change {
  readonly path: string;
  readonly kind: ChangeKind;
  readonly owner: Owner;
  /** On disk now (undefined: absent). */
  readonly before?: string;
  /** What svcgen would write (undefined for deletions). */
  readonly after?: string;
  /** An added stub of the user's that the manifest recorded: it was deleted, and comes back empty. */
  readonly restored?: true;
  /** An unused stub the manifest recorded unused already: an earlier run left it so. */
  readonly unusedBefore?: true;
  /**
   * A stale file the manifest records as generated that nothing but the manifest shows svcgen
   * wrote (no generated header, or a file type that has none): kept, as the manifest is untrusted.
   */
  readonly unproven?: true;
  /**
   * A user-owned file svcgen would create, found there already and not created by svcgen (not in
   * the manifest): kept, and from now on the stub (`after`: the stub svcgen would have written).
   */
  readonly adopted?: true;
  /**
   * Kept: on disk as this run would write it, and not in the manifest: an earlier run put it in place
   * and stopped before its manifest (a file it could not write, SVC3011). This run records it, and
   * says it is new (a migration the service will run, a stub).
   */
  readonly unrecorded?: true;
}

export function planChanges(tree: OutputTree, disk: OnDisk, previous: Manifest | null, force: boolean): Change[] {
  const changes: Change[] = [];
  for (const file of tree.values()) {
    const before = disk.get(file.path);
    if (before === undefined) {
      const restored = file.owner === 'user' && previous?.files[file.path]?.owner === 'user';
      changes.push({
        path: file.path,
        kind: 'add',
        owner: file.owner,
        after: file.content,
        ...(restored && { restored }),
      });
    }
    // A migration already in the out-dir is in the tree as it is on disk: never rewritten.
    else if (file.owner === 'user' || file.owner === 'migration' || before === file.content) {
      // A file of the user's where a stub goes, not one svcgen created: taken as the stub (said, SVC3013).
      const recorded = previous?.files[file.path] !== undefined;
      const adopted = file.owner === 'user' && before !== file.content && !recorded;
      const unrecorded = previous !== null && !recorded && before === file.content;
      changes.push({
        path: file.path,
        kind: 'keep',
        owner: file.owner,
        before,
        ...(adopted && { adopted, after: file.content }),
        ...(unrecorded && { unrecorded }),
      });
    } else {
      const recorded = previous?.files[file.path];
      const asRecorded = recorded?.owner === 'generated' && asWritten(before, recorded.sha256);
      // As svcgen wrote it, by the manifest, but without the generated header its type carries: svcgen never wrote
      // it so (the entry was added by hand), and it is not overwritten on the manifest's word.
      const unedited = asRecorded && bearsGeneratedHeader(file.path, before) !== false;
      const refused = recorded?.owner === 'generated' && !asRecorded ? 'conflict' : 'foreign';
      changes.push({
        path: file.path,
        kind: unedited || force ? 'change' : refused,
        owner: file.owner,
        before,
        after: file.content,
      });
    }
  }
  for (const [path, recorded] of Object.entries(previous?.files ?? {})) {
    // Migrations are never deleted (one missing from the disk stops the run first: write/history.ts).
    if (tree.has(path) || recorded.owner === 'migration') continue;
    const before = disk.get(path);
    if (before === undefined) continue;
    if (recorded.owner === 'user') {
      changes.push({ path, kind: 'unused', owner: 'user', before, ...(recorded.unused && { unusedBefore: true }) });
      continue;
    }
    // Deleted only when the file itself shows svcgen wrote it (its header), never on the manifest's word alone.
    if (bearsGeneratedHeader(path, before) !== true) {
      changes.push({ path, kind: 'stale-edited', owner: 'generated', before, unproven: true });
      continue;
    }
    const unedited = asWritten(before, recorded.sha256);
    changes.push({ path, kind: unedited || force ? 'delete' : 'stale-edited', owner: 'generated', before });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function asWritten(content: string, sha256: string | undefined): boolean {
  return content !== UNREADABLE && sha256 !== undefined && contentHash(content) === sha256;
}
