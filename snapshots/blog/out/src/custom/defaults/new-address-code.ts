// Created by svcgen from api.raml; this file is yours: svcgen never changes it. The {{new_address_code}} default value.
import type { Address } from '../../models/address.js';

/**
 * The `{{new_address_code}}` default, used by Address.code: called for every new object that does not set the field.
 * Return the value to store, of the field's type; null stores none (a required field is then refused).
 */
export function newAddressCode(): NonNullable<Address['code']> | null {
  return null;
}
