/**
 * Item handlers the other method of an item does not run. `PATCH /lessons/4` runs the model's
 * `update` handlers, `PUT /lessons/4` its `replace` handlers; `set` lists one handler for both
 * (and `create`). A rule that a `before_update` handler alone enforces (a room is not double-booked)
 * then holds for a PATCH and not for a PUT of the same object: a probe's PUT double-booked the room
 * its PATCH was refused. checks.ts (SVC2111) says so for each item route that declares the method.
 */
import type { Action, Model, Route, ServiceIR } from '../ir/types.js';
import { handlersOf } from './bulk-handlers.js';

export interface OtherMethodHandlers {
  readonly model: Model;
  readonly route: Route;
  /** The method whose handlers leave some of the other's out, and its action. */
  readonly method: 'PUT' | 'PATCH';
  readonly action: 'replace' | 'update';
  /** The action whose handlers it does not run. */
  readonly other: 'update' | 'replace';
  readonly phase: 'before' | 'after';
  readonly handlers: readonly string[];
}

const METHODS: readonly { method: 'PUT' | 'PATCH'; action: 'replace' | 'update'; other: 'update' | 'replace' }[] = [
  { method: 'PUT', action: 'replace', other: 'update' },
  { method: 'PATCH', action: 'update', other: 'replace' },
];

export function otherMethodHandlers(ir: ServiceIR): OtherMethodHandlers[] {
  const found: OtherMethodHandlers[] = [];
  for (const route of ir.routes) {
    if (route.kind !== 'item') continue;
    const model = ir.models.find((m) => m.name === route.model);
    if (!model) continue;
    for (const { method, action, other } of METHODS) {
      if (!route.operations.some((o) => o.action === (action as Action))) continue;
      for (const phase of ['before', 'after'] as const) {
        const run = new Set(handlersOf(model, phase, [action]));
        const handlers = handlersOf(model, phase, [other]).filter((name) => !run.has(name));
        if (handlers.length) found.push({ model, route, method, action, other, phase, handlers });
      }
    }
  }
  return found;
}
