/**
 * What an error already reported makes unknowable. When a model's schema does not parse, or a
 * relationship cannot be resolved, whatever refers to it — a route below it, its backref, a list
 * naming it, a foreign key to it — cannot be checked: saying it is wrong would only echo the
 * first error, and since diagnostics are printed by place, the echo often comes before its
 * cause. Build steps record here what they could not build; later steps stay silent about it.
 */
import type { PoisonedView } from '../sources.js';

export class Poisoned implements PoisonedView {
  /** Models whose fields are unknown. */
  readonly #models = new Set<string>();
  /** Of those, the ones without a schema that was read: the backrefs they would add are unknown too. */
  readonly #unread = new Set<string>();
  /** `Model.field`, or `*.field` for the backref of a relationship to an unknown model. */
  readonly #fields = new Set<string>();
  readonly #acls = new Set<string>();

  /**
   * A model whose schema did not parse, or that the RAML needs and no schema defines. Its
   * relationships would add backrefs to other models, so no model's relationships are known in full.
   */
  addUnreadModel(name: string): void {
    this.#models.add(name);
    this.#unread.add(name);
  }

  /** A model whose schema was read but has no usable `properties`: it is served, its fields are unknown. */
  addModelWithoutFields(name: string): void {
    this.#models.add(name);
  }

  /**
   * A field that would exist but for a reported error: a relationship that failed, or its backref.
   * `model` null: the backref of a relationship to an unknown model, which could be on any model.
   */
  addField(model: string | null, name: string): void {
    this.#fields.add(`${model ?? '*'}.${name}`);
  }

  /** An x-ACL named by a resource that got no route because of a reported error. */
  addAcl(name: string): void {
    this.#acls.add(name);
  }

  hasModel(name: string): boolean {
    return this.#models.has(name);
  }

  /** Whether the model's field `name` (declared or a backref) was left out or is unknown because of a reported error. */
  hasField(model: string, name: string): boolean {
    return this.#models.has(model) || this.#fields.has(`${model}.${name}`) || this.#fields.has(`*.${name}`);
  }

  /** For a name the model's schema does not declare: it may be the backref of a relationship in a schema that was not read. */
  mayBeBackref(model: string, name: string): boolean {
    return this.#unread.size > 0 || this.hasField(model, name);
  }

  /** The models whose schema was not read, whose backrefs are unknown: what a message may name as a cause. */
  unreadModels(): readonly string[] {
    return [...this.#unread];
  }

  hasAcl(name: string): boolean {
    return this.#acls.has(name);
  }
}
