/**
 * `example`s for path parameters and request bodies, so that Swagger UI's "Try it out" starts
 * filled in and contract testers that need one (dredd) have it. They are the generated tests'
 * sample data (samples.ts) for `n = 1`, valid against their own schemas like those samples.
 */
import type { Model, Route } from '../../ir/types.js';
import { fieldSample, sampleChange, sampleObject } from '../shared/samples.js';
import { parentLinkOf } from '../shared/parent-link.js';
import type { OpenApiContext } from './context.js';

const N = 1;

/** A key of a model, as a path parameter or a link in a body holds it. */
export function keyExample(ctx: OpenApiContext, model: string): unknown {
  return fieldSample(ctx.types.key(model)).value(N);
}

/**
 * The body that creates (or replaces) an object, with the links it must have; or the fields a
 * PATCH changes (the whole create body without the unique fields when the model has no field the
 * tests change, so that it could be sent to any object).
 */
export function bodyExample(
  ctx: OpenApiContext,
  model: Model,
  which: 'create' | 'update',
  route?: Route,
): Record<string, unknown> {
  const sample = sampleObject(model, N);
  if (which === 'update') {
    const unique = new Set(model.fields.filter((f) => f.unique || f.primaryKey).map((f) => f.name));
    return sampleChange(model) ?? Object.fromEntries(Object.entries(sample).filter(([name]) => !unique.has(name)));
  }
  // Below a parent, the URL gives the link to it: the body may not (lib/http/writes.ts).
  const fromUrl = route && parentLinkOf(route, model);
  const links = model.fields
    .filter((f) => f.type === 'relationship' && f.requiredOnCreate && f.name !== fromUrl)
    .map((f) => {
      const relation = model.relationships.find((r) => r.name === f.name)!;
      const key = keyExample(ctx, relation.target);
      return [f.name, relation.cardinality === 'many' ? [key] : key] as const;
    });
  const example: Record<string, unknown> = { ...sample, ...Object.fromEntries(links) };
  if (fromUrl) delete example[fromUrl];
  return example;
}
