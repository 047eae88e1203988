// Created by svcgen from api.raml; this file is yours: svcgen never changes it. The {{new_address_code}} default value.
/**
 * The `{{new_address_code}}` default, used by Address.code: called for every new object that does not set the field.
 * Return the value to store.
 */
export function newAddressCode(): unknown {
  return null;
}
