/**
 * What a model's own code gives its fields (its before handlers, its processors) is held to the
 * field's schema, as a client's body is. A probe's processor that returned 46 characters for a
 * field of 30 had them stored on SQLite, which keeps any length, and refused on PostgreSQL as if
 * the client had sent them (a 400); one that returned a number for a text field had it stored as
 * "12345.0" on SQLite and "12345" on PostgreSQL. Neither is the client's mistake: a 500, the same
 * on every engine, whose log names the code and the field, and nothing stored.
 */
import type { FastifyRequest } from 'fastify';
import type { Model } from '../model.js';
import { bodyProblem, type SchemaProblem } from './problem-words.js';

type Validate = ((value: unknown) => boolean) & { errors?: SchemaProblem[] | null };

/** Per field schema, the object schema it is checked in: `{ [field]: value }`, so that problems name the field. */
const wrappers = new WeakMap<object, { readonly field: string; readonly schema: object }>();
/** Field schemas the validator cannot compile alone: not checked here (the database still is). */
const uncompilable = new WeakSet<object>();

/** Why `value` does not fit `field` of `model` ("phone must be at most 30 characters long"), or undefined. */
export function unfitValue(request: FastifyRequest, model: Model, field: string, value: unknown): string | undefined {
  const schema = model.properties?.[field];
  // A request made without Fastify's routing (a test's stand-in) has no validator to compile with.
  if (!schema || uncompilable.has(schema) || typeof request.compileValidationSchema !== 'function') return undefined;
  let wrapper = wrappers.get(schema);
  // One field's schema object is no other's (the model file writes each), but a shared one is never taken for it.
  if (wrapper?.field !== field) {
    wrapper = { field, schema: { type: 'object', properties: { [field]: schema } } };
    wrappers.set(schema, wrapper);
  }
  let validate: Validate;
  try {
    // Fastify's own validator (its formats and options), the function kept per schema object.
    validate = request.compileValidationSchema(wrapper.schema) as Validate;
  } catch {
    uncompilable.add(schema);
    return undefined;
  }
  if (validate({ [field]: value })) return undefined;
  const problems = (validate.errors ?? []).flatMap(bodyProblem).map((p) => `${p.field} ${p.message}`);
  return problems.length ? problems.join('; ') : `${field} is not a value its schema allows`;
}
