/**
 * Constraint errors of SQLite and PostgreSQL as `ConstraintViolation`s that name the fields a client
 * knows (lib/http/app.ts turns them into 409s and 400s).
 */
import type { Model } from '../model.js';
import { ConstraintViolation, UnknownReference } from '../repository.js';

export function constraintViolation(error: unknown, model: Model): ConstraintViolation | UnknownReference | undefined {
  const e = error as { code?: string; message?: string; detail?: string; column?: string; constraint?: string };
  const message = e.message ?? '';
  const missing = e.code === '23503' ? missingTarget(e.detail ?? '', model) : undefined;
  if (missing) return missing;
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e.code === '23505') {
    const columns =
      e.code === '23505'
        ? (/Key \(([^)]*)\)/.exec(e.detail ?? '')?.[1] ?? '').split(', ')
        : [...message.matchAll(/\w+\.(\w+)/g)].map((m) => m[1]!);
    return new ConstraintViolation('unique', fieldsOf(model, columns), message);
  }
  // RESTRICT is its own code: 23001 in PostgreSQL, a "trigger" constraint in SQLite. Links are
  // checked before writes (checkReferences), so what breaks a foreign key is a delete that a
  // RESTRICT relationship prevents: name those relationships.
  const restrict = e.code === '23001' || (e.code === 'SQLITE_CONSTRAINT_TRIGGER' && /FOREIGN KEY/i.test(message));
  if (e.code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || e.code === '23503' || restrict) {
    return new ConstraintViolation(
      'foreign_key',
      model.relations.filter((r) => r.onDelete === 'restrict').map((r) => r.name),
      message,
    );
  }
  if (e.code === 'SQLITE_CONSTRAINT_NOTNULL' || e.code === '23502') {
    const column = e.column ?? /\w+\.(\w+)/.exec(message)?.[1] ?? '';
    return new ConstraintViolation('not_null', fieldsOf(model, [column]), message);
  }
  // PostgreSQL refuses values its column types cannot hold (out of range, too long): a client's mistake.
  // So are values too large for what it builds of them (54000): a text with more words than a
  // search vector holds (1 MB), or a unique text too long for its index entry (8 kB).
  if (e.code && ['22001', '22003', '22007', '22008', '22P02', '54000'].includes(e.code))
    return new ConstraintViolation('invalid', e.column ? fieldsOf(model, [e.column]) : [], message);
  return undefined;
}

/**
 * PostgreSQL: a link written to an object deleted since it was checked (the write's check found it;
 * the delete committed before the write): what the write would have been told a moment later, the
 * link's 400 naming the object, not a delete's 409. Detail: `Key (company_id)=(5) is not present in
 * table "company".`
 */
function missingTarget(detail: string, model: Model): UnknownReference | undefined {
  const found = /^Key \(([^)]*)\)=\((.*)\) is not present in table/.exec(detail);
  const relation = found && model.relations.find((r) => r.local && r.foreignKey === found[1]);
  if (!found || !relation) return undefined;
  return new UnknownReference(relation.name, relation.target, [found[2]]);
}

/** The fields clients know for columns: a foreign key column is named by the relationship it holds. */
function fieldsOf(model: Model, columns: readonly string[]): string[] {
  return columns
    .filter(Boolean)
    .map(
      (c) =>
        model.relations.find((r) => r.local && r.foreignKey === c)?.name ??
        model.columns.find((f) => f.column === c)?.name ??
        c,
    );
}
