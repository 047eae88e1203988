import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * `folder` and the folders above it that are missing (the out-dir's own included), one at a time:
 * Node's recursive mkdir never returns on some paths (`-o /proc/nope` spun at 100 % CPU for a
 * probe). The first folder it made (the highest), or undefined when `folder` was there.
 */
export function makeFolder(folder: string): string | undefined {
  if (existsSync(folder)) return undefined;
  const parent = dirname(folder);
  const above = parent !== folder ? makeFolder(parent) : undefined;
  mkdirSync(folder);
  return above ?? folder;
}
