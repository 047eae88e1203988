/**
 * The file system's refusals of a write to the out-dir (no permission, a read-only or full disk),
 * said as the reason a user can act on: by the write of the files (write/write.ts) and by the
 * lock a run takes first (lock.ts), both reported as SVC3011 (out-dir.ts `reportUnwritable`); and
 * a path that became unsafe while svcgen ran.
 */
import type { DiskProblem } from './paths.js';

/** A path of the out-dir that became unsafe while svcgen ran: nothing more is written. */
export class OutDirChanged extends Error {
  constructor(
    readonly path: string,
    readonly problem: DiskProblem,
  ) {
    super(`${path}: the out-dir changed while svcgen ran`);
    this.name = 'OutDirChanged';
  }
}

/**
 * The out-dir could not be written where `path` is (no permission, a read-only or full disk): of
 * this run, nothing is in place (`partly` empty), or those paths are (a failure after the first
 * was put in place, which the writes of every file first make rare).
 */
export class OutDirUnwritable extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
    readonly partly: readonly string[],
  ) {
    super(`${path}: ${reason}`);
    this.name = 'OutDirUnwritable';
  }
}

/** `error` as OutDirUnwritable when it is the file system's refusal (an errno code), else as it is. */
export function unwritable(error: unknown, done: readonly string[], path: string | undefined): unknown {
  if (error instanceof OutDirChanged || !(error instanceof Error) || !('code' in error)) return error;
  const { code, syscall } = error as NodeJS.ErrnoException;
  const reason = `${syscall ?? 'write'} failed: ${REASONS[code ?? ''] ?? error.message} [${code}]`;
  return new OutDirUnwritable(path ?? '.', reason, done);
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the disk',
  EDQUOT: 'the disk quota is used up',
  ENAMETOOLONG: 'the name is too long',
  ENOENT: 'a folder on the way does not exist and cannot be made',
  ELOOP: 'too many symbolic links',
  EMFILE: 'too many open files',
};
