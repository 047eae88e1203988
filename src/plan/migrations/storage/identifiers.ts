/** SQL identifiers as both dialects accept them. */
import { createHash } from 'node:crypto';

export type Dialect = 'sqlite' | 'postgres';

/**
 * PostgreSQL cuts names at 63 bytes, so two long names could become one: a longer name keeps its
 * start and ends with a hash of the whole. (SQLite has no limit; its names stay as they were.)
 */
export function identifier(name: string, dialect: Dialect): string {
  if (dialect === 'sqlite' || Buffer.byteLength(name) <= 63) return name;
  let start = name.slice(0, 54);
  while (Buffer.byteLength(start) > 54) start = start.slice(0, -1);
  return `${start}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

/** Identifiers are quoted: tables such as `user` are reserved words in PostgreSQL. */
export function q(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
