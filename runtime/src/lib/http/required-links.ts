/**
 * Links the other side must keep. A post whose `author` is required cannot lose it: a delete of
 * its author that would unlink it (`NULLIFY`) is refused, and so is a change of the author that
 * drops it from their `posts` (`{ "posts": [] }`). SQLite and PostgreSQL answered both with a 400
 * naming the post's foreign key, a field the client never sent (`organisation_id is required`),
 * and MongoDB left the posts without their author. Both are a 409 naming the relationship.
 */
import type { ServiceDatabase } from '../database.js';
import { conflict, type HttpError } from '../errors.js';
import type { Model } from '../model.js';
import { namedKeys } from '../repository.js';
import { keysOf } from './relinks.js';
import { text } from '../text.js';

type Rec = Record<string, unknown>;

/** Whether the objects of `target` must have the link whose foreign key is `column`. */
export function requiredLink(target: Model, column: string): boolean {
  return target.columns.some((field) => field.column === column && field.required);
}

/** A delete refused because objects need what it deletes: a 409, as a RESTRICT link's. */
export function neededBy(model: Model, relation: string): HttpError {
  return conflict(
    `related objects still refer to this ${model.name} (${relation}), and their link is required, so it cannot be deleted`,
    [{ field: relation, message: 'has related objects that need this one (their link is required)' }],
  );
}

/**
 * Refuses (409) a change of the object `key` of `model` whose `data` drops, from a relationship
 * kept in the other objects' rows, objects whose link to it is required. `data`: as it will be
 * written, with the links to objects the caller may not view kept (hidden-links.ts), so only
 * objects the body could name are named.
 */
export async function refuseRequiredUnlinks(db: ServiceDatabase, model: Model, key: unknown, data: Rec): Promise<void> {
  if (key === undefined) return;
  for (const relation of model.relations) {
    const value = data[relation.name];
    if (relation.local || value === undefined) continue;
    const target = db.models.get(relation.target);
    if (!target || !requiredLink(target, relation.foreignKey)) continue;
    const wanted = new Set(keysOf(value).map((k) => text(k)));
    const linked = await db.repository(relation.target).keys({ [relation.inverse]: key });
    const dropped = linked.map((k) => text(k)).filter((k) => !wanted.has(k));
    if (dropped.length === 0) continue;
    const named = namedKeys(dropped);
    const message = `would unlink ${target.name} ${named}, whose ${relation.inverse} is required: link ${dropped.length > 1 ? 'them' : 'it'} to another ${model.name} first, or delete ${dropped.length > 1 ? 'them' : 'it'}`;
    throw conflict(`${relation.name} ${message}`, [{ field: relation.name, message }]);
  }
}
