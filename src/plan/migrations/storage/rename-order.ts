/**
 * Renames in an order that overwrites nothing, where a new name is one renamed away in the same
 * migration (two names swapped, or a chain): those go through a name of their own first
 * (`svc_renaming_<from>`). MongoDB's `$rename` and the retained events' renames write over what
 * has the new name already: a swap of two fields renamed one onto the other, and lost its values.
 * (SQL's, which also moves dropped names aside, is sql.ts `renamePlan`.)
 */
export function renamesInOrder(renames: readonly (readonly [string, string])[]): [string, string][] {
  const sources = new Set(renames.map(([from]) => from));
  const aside = renames.filter(([, to]) => sources.has(to));
  return [
    ...aside.map(([from]): [string, string] => [from, `svc_renaming_${from}`]),
    ...renames.filter((r) => !aside.includes(r)).map(([from, to]): [string, string] => [from, to]),
    ...aside.map(([from, to]): [string, string] => [`svc_renaming_${from}`, to]),
  ];
}
