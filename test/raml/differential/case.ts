/** A small RAML document for the differential suite: the text after `#%RAML 0.8`, and other files it includes. */
export interface DifferentialCase {
  readonly name: string;
  readonly raml: string;
  readonly files?: Readonly<Record<string, string>>;
}

/** Cases from a record of name → RAML text, names prefixed with the group. */
export function group(prefix: string, cases: Readonly<Record<string, string>>): DifferentialCase[] {
  return Object.entries(cases).map(([name, raml]) => ({ name: `${prefix}/${name}`, raml }));
}

/** Indents every line of `text` by `by` spaces (to place a snippet inside a larger document). */
export function indent(text: string, by: number): string {
  const pad = ' '.repeat(by);
  return text
    .split('\n')
    .map((line) => (line === '' ? line : pad + line))
    .join('\n');
}
