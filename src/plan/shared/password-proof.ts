/**
 * `current_password`: what a user sends beside a new password in the PATCH of their own record,
 * to prove they know the one it replaces (runtime/src/lib/auth/password-change.ts). Only the
 * users' model takes it, and only in a PATCH: the route's body schema, the OpenAPI document's
 * `<User>Update` and the client's type.
 */
import type { Model } from '../../ir/types.js';
import { isSecretField } from './field-types.js';

export const CURRENT_PASSWORD = 'current_password';

/** The property's schema in a PATCH body of `model`, or null when the model has no password. */
export function passwordProofSchema(model: Model): Record<string, unknown> | null {
  if (!model.fields.some((f) => isSecretField(model, f))) return null;
  return { type: 'string', minLength: 1, maxLength: 1024 };
}

/** What the OpenAPI document and the client say of it. */
const PASSWORD_PROOF_NOTE =
  "The current password, to change your own password (with the new one in password). Required unless auth.require_current_password = false; admins changing another user's password leave it out.";

/**
 * The properties of a PATCH body of `model` as the OpenAPI document and the client declare them:
 * with the proof, described, where the model has a password (and `annotations` on it besides).
 */
export function withPasswordProof(
  model: Model,
  properties: Record<string, unknown>,
  annotations: Record<string, unknown> = {},
): Record<string, unknown> {
  const proof = passwordProofSchema(model);
  return proof
    ? { ...properties, [CURRENT_PASSWORD]: { ...proof, ...annotations, description: PASSWORD_PROOF_NOTE } }
    : properties;
}
