/** Which side of a relationship keeps its key (the artifacts that store or describe links agree on it). */
import type { Model, Relationship } from './types.js';

/**
 * The side of a relationship whose table has the foreign key column, as its own value: a to-one
 * side on the model with the column. In a self-reference both sides are that model; the column
 * is the to-one side's (the backref's, for a one-to-one).
 */
export function holdsKey(model: Model, relationship: Relationship): boolean {
  if (relationship.foreignKey.model !== model.name || relationship.cardinality !== 'one') return false;
  return relationship.target !== model.name || !relationship.declared;
}
