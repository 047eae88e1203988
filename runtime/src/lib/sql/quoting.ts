/**
 * SQL text the runtime writes itself (names of tables and columns known from the models, literals
 * of its own making), quoted alike on SQLite and PostgreSQL. Values a client sends are never
 * written in this way: they go as parameters.
 */

/** `"name"`, an identifier that may be a keyword or hold any character. */
export function identifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `'text'`, a string literal. */
export function stringLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
