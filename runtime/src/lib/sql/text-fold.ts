/**
 * Case-insensitive `__contains`/`__startswith` on SQLite beyond ASCII. SQLite's `LIKE` folds the
 * 26 ASCII letters only, so `name__contains=é` missed "Éclair" where PostgreSQL (by its LC_CTYPE)
 * and MongoDB (a regex with `i`) find it. A pattern of ASCII characters keeps `LIKE` alone (its
 * folding is then all there is to do, and it costs no call per row); any other pattern compares
 * both sides lower-cased by JavaScript, through a function registered on every connection.
 */

/** The SQL function that lower-cases text as JavaScript does (null stays null). */
export const SQLITE_LOWER = 'svc_lower';

/** A value SQLite hands a function (a number or blob is left as it is: LIKE reads it as text). */
type SqliteValue = string | number | bigint | Buffer | null;

/** What this module uses of a better-sqlite3 `Database`. */
export interface SqliteFunctions {
  function(name: string, options: { deterministic: boolean }, fn: (value: SqliteValue) => SqliteValue): unknown;
}

/** Registers SQLITE_LOWER on `db` (each connection has its own functions). */
export function addTextFold(db: SqliteFunctions): void {
  db.function(SQLITE_LOWER, { deterministic: true }, (value) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
}

/** True where SQLite's `LIKE` folds every letter of `pattern` itself. */
export function likeFolds(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) if (pattern.charCodeAt(i) > 0x7f) return false;
  return true;
}
