/**
 * Embedding never shows more than the related model's own routes would: a related
 * object the caller may not view, by the x-ACL of that model's route (`Model.aclRoute`), is
 * shown as its key, as a relationship that is not embedded is. Its own relationships are then
 * not followed either. Decisions that do not depend on the object are made once per model.
 */
import type { FastifyRequest } from 'fastify';
import type { Model, ModelRegistry } from '../model.js';
import { modelRoute, type Policy } from './policy.js';
import { withLinkKeys } from './serialize.js';

type Rec = Record<string, unknown>;

/** Replaces, in `records` (as loaded, before serialising), each embedded object the caller may not view by its key. */
export async function hideRefusedEmbeds(
  policy: Policy,
  request: FastifyRequest,
  model: Model,
  records: readonly Rec[],
  models: ModelRegistry,
): Promise<void> {
  if (!policy.restricts || records.length === 0) return;
  const decisions = new Map<string, boolean>();
  const mayView = async (target: Model, object: Rec): Promise<boolean> => {
    const route = modelRoute(target);
    const once = !policy.needsObject(route);
    if (once && decisions.has(target.name)) return decisions.get(target.name)!;
    const allowed = await policy.may(
      request,
      'view',
      route,
      route.kind === 'item' ? withLinkKeys(target, object, models) : undefined,
    );
    if (once) decisions.set(target.name, allowed);
    return allowed;
  };
  await walk(model, records, models, mayView);
}

async function walk(
  model: Model,
  records: readonly Rec[],
  models: ModelRegistry,
  mayView: (model: Model, object: Rec) => Promise<boolean>,
): Promise<void> {
  for (const relation of model.relations) {
    const target = models.get(relation.target);
    if (!target) continue;
    const shown: Rec[] = [];
    const visibleOrKey = async (value: unknown): Promise<unknown> => {
      if (!isObject(value)) return value;
      if (!(await mayView(target, value))) return value[target.primaryKey];
      shown.push(value);
      return value;
    };
    for (const record of records) {
      const value = record[relation.name];
      if (Array.isArray(value)) {
        const out: unknown[] = [];
        for (const v of value) out.push(await visibleOrKey(v));
        record[relation.name] = out;
      } else if (isObject(value)) record[relation.name] = await visibleOrKey(value);
    }
    if (shown.length) await walk(target, shown, models, mayView);
  }
}

function isObject(value: unknown): value is Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
