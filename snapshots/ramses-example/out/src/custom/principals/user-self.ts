// Created by svcgen from api.raml; this file is yours: svcgen never changes it. The {{user_self}} ACL principal.
import type { FastifyRequest } from 'fastify';
import type { AclResult, AclRule } from '../../lib/auth/index.js';
import type { User } from '../../models/user.js';

/**
 * The `{{user_self}}` principal, in:
 *   user_self_acl (item): allow {{user_self}} update
 *
 * Called when a request is checked against that line: `request.user` is the caller (null when
 * anonymous), `object` the object of an item route (undefined for collection rules), `rule` the
 * line's action and permissions. Return the rules it stands for, e.g. for the object's owner:
 *   return object?.owner != null ? grant(rule, user(object.owner)) : undefined;
 * (`grant` and `user` come from '../../lib/auth/index.js'). Returning nothing: the line matches no one.
 */
export function userSelf(request: FastifyRequest, object: User | undefined, rule: AclRule): AclResult {
  return undefined;
}
