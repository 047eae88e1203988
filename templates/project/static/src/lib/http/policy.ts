/**
 * Who may do what, and who sees which fields. With `auth = false` every request may do
 * everything the RAML lists and sees every field (contract §2); the ACL policy of the auth
 * module replaces this one when authentication is on.
 */
import type { FastifyRequest } from 'fastify';
import type { Model } from '../model.js';

export type Permission = 'view' | 'create' | 'update' | 'delete' | 'options';

export interface Policy {
  /**
   * Throws 401/403 unless the request may use `permission` on the route's collection (`object`
   * undefined) or on `object`.
   */
  authorize(
    request: FastifyRequest,
    permission: Permission,
    route: { readonly acl: string | null },
    object?: Record<string, unknown>,
  ): Promise<void>;
  /** The fields of `model` this request may see (null: all). */
  visibleFields(request: FastifyRequest, model: Model): ReadonlySet<string> | null;
  /** Throws 403 when the body writes fields the request may not write. */
  checkWritable(request: FastifyRequest, model: Model, fields: readonly string[]): void;
  /** The largest page this request may read. */
  maxLimit(request: FastifyRequest): number;
}

export function openPolicy(maxLimit: number): Policy {
  return {
    authorize: async () => undefined,
    visibleFields: () => null,
    checkWritable: () => undefined,
    maxLimit: () => maxLimit,
  };
}
