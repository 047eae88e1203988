/**
 * A list of values that must hold every member of a union type defined elsewhere (the runtime's
 * field types, storage kinds): `everyMember<FieldType>()([...])` does not compile when the list
 * misses a member or holds a value that is none.
 */
export function everyMember<T extends string>() {
  return <const L extends readonly T[]>(list: L & ([T] extends [L[number]] ? unknown : MissingFrom<T, L>)): L => list;
}

/** What the compiler says when a member is missing: the members, by name. */
interface MissingFrom<T, L extends readonly unknown[]> {
  readonly missing: Exclude<T, L[number]>;
}
