/**
 * Before handlers that a link written from the other model skips. A relationship whose foreign key
 * is kept on the other model (`User.assigned_tickets`, the other side of `Ticket.contractor`) moves
 * that model's objects when it is written: `PATCH /users/t1 {"assigned_tickets": [1, 3]}` changes
 * the contractor of tickets 1 and 3. The write asks the ACL's `update` of each ticket, and each gets
 * an update event, but Ticket's `before_update` handlers do not run for them: a rule such a handler
 * keeps for a change of `contractor` (only a manager assigns) does not hold for one made from User.
 * checks.ts (SVC2086) says so where it happens.
 */
import type { Model, Relationship, ServiceIR } from '../ir/types.js';

/** The actions of a model's routes that write its relationships. */
const WRITING_ACTIONS = new Set(['create', 'update', 'replace', 'update_many']);

export interface SkippedByMovedLinks {
  /** The model whose relationship is written (`User`). */
  readonly writer: Model;
  readonly relationship: Relationship;
  /** The model whose objects it moves (`Ticket`), and the link of theirs it changes (`contractor`). */
  readonly moved: Model;
  readonly link: string;
  /** The moved model's before handlers of update and replace, in order. */
  readonly handlers: readonly string[];
}

export function skippedByMovedLinks(ir: ServiceIR): SkippedByMovedLinks[] {
  const models = new Map(ir.models.map((m) => [m.name, m]));
  const found: SkippedByMovedLinks[] = [];
  for (const writer of ir.models) {
    if (!writesRelationships(ir, writer)) continue;
    for (const relationship of writer.relationships) {
      const moved = models.get(relationship.target);
      // Kept in the writer's own row: the write changes no other object.
      if (!moved || relationship.foreignKey.model === writer.name) continue;
      const field = writer.fields.find((f) => f.name === relationship.name);
      if (!field || field.readOnly) continue;
      const handlers = beforeUpdateHandlers(moved);
      if (handlers.length) found.push({ writer, relationship, moved, link: relationship.inverse, handlers });
    }
  }
  return found;
}

/** Whether a route (or registration, for the user model) writes the model's relationships. */
function writesRelationships(ir: ServiceIR, model: Model): boolean {
  if (ir.auth?.userModel === model.name) return true;
  return ir.routes.some(
    (r) => r.model === model.name && r.kind !== 'attribute' && r.operations.some((o) => WRITING_ACTIONS.has(o.action)),
  );
}

function beforeUpdateHandlers(model: Model): string[] {
  const names = model.eventHandlers
    .filter((b) => b.phase === 'before' && (b.action === 'update' || b.action === 'replace'))
    .flatMap((b) => b.handlers);
  return [...new Set(names)];
}
