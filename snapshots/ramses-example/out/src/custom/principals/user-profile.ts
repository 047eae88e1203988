// Created by svcgen from api.raml; this file is yours: svcgen never changes it. The {{user_profile}} ACL principal.
import type { FastifyRequest } from 'fastify';
import type { AclResult, AclRule } from '../../lib/auth/index.js';
import type { Profile } from '../../models/profile.js';

/**
 * The `{{user_profile}}` principal, in:
 *   user_profile_acl (collection): allow {{user_profile}} all
 *   user_profile_acl (item): allow {{user_profile}} all
 *
 * Called when a request is checked against that line: `request.user` is the caller (null when
 * anonymous), `object` the object of an item route (undefined for collection rules), `rule` the
 * line's action and permissions. Return the rules it stands for, e.g. for the object's owner:
 *   return object?.owner != null ? grant(rule, user(object.owner)) : undefined;
 * (`grant` and `user` come from '../../lib/auth/index.js'). Returning nothing: the line matches no one.
 */
export function userProfile(request: FastifyRequest, object: Profile | undefined, rule: AclRule): AclResult {
  return undefined;
}
