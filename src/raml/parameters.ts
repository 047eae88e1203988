/**
 * `<<parameter>>` substitution in resource types and traits (RAML 0.8 §Parameters).
 * A parameter may appear anywhere in a key or a string value, any number of times, optionally
 * transformed: `<<name | !singularize>>` or `<<name | !pluralize>>`.
 */
import pluralize from 'pluralize';
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { basename } from 'node:path';
import { positionAt, span as makeSpan, type Span } from '../diagnostics/source.js';
import type { ScalarValue, YScalar } from '../load/ynode.js';
import { closest, didYouMean } from '../util/suggest.js';
import { coreScalar } from '../load/core-schema.js';

const PARAMETER = /<<([^<>]*?)>>/g;
/** `name` or `name | !function`; a name may hold spaces (`<<a b>>` names the parameter "a b", as in raml-1-parser). */
const REFERENCE = /^\s*([^|]*?)\s*(?:\|\s*(\S*)\s*)?$/;

export const RESERVED_PARAMETERS = ['resourcePath', 'resourcePathName', 'methodName'] as const;

/** RAML 0.8 §Parameters: the only functions a parameter value can be transformed with. */
export const PARAMETER_FUNCTIONS = ['!singularize', '!pluralize'] as const;

/** `<<name>>` or `<<name | !function>>`, read; or why it cannot be read. */
export type ParameterReference = { readonly name: string; readonly fn?: string } | { readonly problem: string };

export function parseReference(inner: string): ParameterReference {
  const match = REFERENCE.exec(inner);
  if (match?.[1] === '' || inner.trim() === '') return { problem: 'a parameter reference needs a name: <<name>>' };
  if (!match) return { problem: `malformed parameter reference <<${inner}>>: write <<name>> or <<name | !function>>` };
  return match[2] === undefined ? { name: match[1]! } : { name: match[1]!, fn: match[2] };
}

/**
 * Checks every `<<…>>` of a template string where it is written, applied or not: a blank or
 * malformed reference (SVC1209) and an unknown function (SVC1207). The same diagnostics as
 * when the template is applied, at the same place, so the bag keeps one of each.
 */
export function checkReferences(text: string, at: Span, diagnostics: DiagnosticBag): void {
  if (!text.includes('<<')) return;
  for (const match of text.matchAll(PARAMETER)) {
    const where = subSpan(at, text, match.index, match[0].length);
    const ref = parseReference(match[1]!);
    if ('problem' in ref) reportMalformed(ref.problem, where, diagnostics);
    else if (ref.fn !== undefined && !isKnownFunction(ref.fn)) reportUnknownFunction(ref.fn, where, diagnostics);
  }
}

function isKnownFunction(fn: string): boolean {
  return (PARAMETER_FUNCTIONS as readonly string[]).includes(fn);
}

function reportMalformed(problem: string, at: Span, diagnostics: DiagnosticBag): void {
  diagnostics.report('SVC1209', problem, {
    span: at,
    hint: 'write <<name>>, or <<name | !singularize>> / <<name | !pluralize>>',
  });
}

function reportUnknownFunction(fn: string, at: Span, diagnostics: DiagnosticBag): void {
  diagnostics.report('SVC1207', `unknown parameter function ${fn}`, {
    span: at,
    hint: didYouMean(fn, PARAMETER_FUNCTIONS) ?? 'use !singularize or !pluralize',
  });
}

/** Parameter values for one application of a resource type or trait. */
export interface ParameterValues {
  /** Values given at the application site, by name. */
  readonly given: ReadonlyMap<string, YScalar>;
  /** Values RAML computes (`resourcePath`, `resourcePathName`, `methodName` for traits). */
  readonly reserved: ReadonlyMap<string, string>;
  /** Reserved names left untouched here (`methodName` inside resource types is not substituted). */
  readonly passThrough: ReadonlySet<string>;
  /** What is being applied, for messages: `resource type "collection"`. */
  readonly what: string;
  /** Where it is applied (`type: collection`): where a missing value must be added. */
  readonly appliedAt: Span;
}

/** Tracks which given parameters a template used, to warn about the others. */
export class ParameterUse {
  readonly used = new Set<string>();
  readonly #missingReported = new Set<string>();

  constructor(
    readonly values: ParameterValues,
    readonly diagnostics: DiagnosticBag,
  ) {}

  /** Substitutes every `<<…>>` in `text`. Unresolvable references are reported and left as written. */
  substitute(text: string, at: Span): string {
    if (!text.includes('<<')) return text;
    return text.replace(PARAMETER, (whole, inner: string, offset: number) => {
      const replacement = this.resolve(inner, subSpan(at, text, offset, whole.length));
      return replacement ?? whole;
    });
  }

  resolve(inner: string, at: Span): string | undefined {
    const ref = parseReference(inner);
    if ('problem' in ref) {
      reportMalformed(ref.problem, at, this.diagnostics);
      return undefined;
    }
    const { name, fn } = ref;
    if (this.values.passThrough.has(name)) return undefined;
    let value = this.values.reserved.get(name);
    if (value === undefined) {
      const given = this.values.given.get(name);
      if (given !== undefined) {
        this.used.add(name);
        value = given.text;
      }
    }
    if (value === undefined) {
      this.reportMissing(name, at);
      return undefined;
    }
    if (fn === undefined) return value;
    return this.transform(fn, value, at);
  }

  /**
   * The value given for a scalar that is one `<<name>>` and nothing else, when that value is an
   * included file (or one whose include failed): the value itself, with its file, so that what is
   * said of a schema passed as `schema: !include item.json` points into item.json, and two
   * resources' schemas passed through one template are two schemas, not one written in the template.
   */
  includedValue(node: YScalar): YScalar | undefined {
    const whole = /^\s*<<([^<>]*)>>\s*$/.exec(node.text);
    const ref = whole ? parseReference(whole[1]!) : undefined;
    if (!ref || !('name' in ref) || ref.fn !== undefined || this.values.passThrough.has(ref.name)) return undefined;
    const given = this.values.given.get(ref.name);
    if (given === undefined) return undefined;
    // So with a plain value that reads the same once substituted (`schema: rides`): what is said of
    // it points at the use that wrote it, not at the template (a porting probe's undeclared schema
    // was reported at the type file, once per resource, naming none).
    const same = node.style === 'plain' && given.value === coreScalar(given.text);
    if (given.includedFile === undefined && given.alreadyReported === undefined && !same) return undefined;
    this.used.add(ref.name);
    return given;
  }

  reportMissing(name: string, at: Span): void {
    if (this.#missingReported.has(name)) return;
    this.#missingReported.add(name);
    const reserved = closest(name, [...this.values.reserved.keys()]);
    if (reserved !== undefined) {
      // A misspelt built-in parameter (`<<resourcePathname>>`) is the template's mistake: said there,
      // not at each use of it (a porting probe's six). Each use says it alike, at the same place,
      // and a run's diagnostics keep one of those (sortDiagnostics).
      this.diagnostics.report('SVC1204', `parameter "${name}" has no value: it is no built-in parameter`, {
        span: at,
        hint: `did you mean \`<<${reserved}>>\`?`,
      });
      return;
    }
    const given = closest(name, [...this.values.given.keys()]);
    const usedAt = positionAt(at.source, at.start);
    this.diagnostics.report('SVC1204', `${this.values.what} needs a value for parameter "${name}"`, {
      span: this.values.appliedAt,
      hint:
        // The use's misspelling: the name it gave is the one to change (its hint read "did you mean `shema`?").
        given !== undefined
          ? `it is given "${given}": did you mean "${name}"?`
          : `it is used at ${basename(at.source.path)}:${usedAt.line}:${usedAt.column}${passItAs(this.values.what, name)}`,
    });
  }

  transform(fn: string, value: string, at: Span): string | undefined {
    switch (fn) {
      case '!singularize':
        return pluralize.singular(value);
      case '!pluralize':
        return pluralize.plural(value);
      default:
        reportUnknownFunction(fn, at, this.diagnostics);
        return undefined;
    }
  }
}

function passItAs(what: string, parameter: string): string {
  const name = /"(.*)"/.exec(what)?.[1];
  return name === undefined ? '' : `; pass it as { ${name}: { ${parameter}: … } }`;
}

/**
 * Substitutes parameters in a scalar. A plain scalar is re-typed after substitution, so
 * `maximum: <<max>>` with `max: 10` is the number 10, as raml-1-parser does.
 */
export function substituteScalar(node: YScalar, use: ParameterUse): YScalar {
  if (typeof node.value !== 'string' || !node.text.includes('<<')) return node;
  const included = use.includedValue(node);
  if (included) return included;
  const text = use.substitute(node.text, node.span);
  if (text === node.text) return node;
  // An empty value stays empty text (r1 prints `description: ""`), not the null `key:` would be.
  const value: ScalarValue = node.style === 'plain' && text !== '' ? coreScalar(text) : text;
  return { ...node, text, value };
}

/** Names of all parameters a string refers to (for unused-parameter checks). */
export function referencedNames(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(PARAMETER)) {
    const ref = parseReference(match[1] ?? '');
    if ('name' in ref) names.push(ref.name);
  }
  return names;
}

/** The span of `<<…>>` inside a scalar when it is written on one line; the scalar's span otherwise. */
function subSpan(at: Span, text: string, offset: number, length: number): Span {
  const written = at.source.text.slice(at.start, at.end);
  if (written === text) return makeSpan(at.source, at.start + offset, at.start + offset + length);
  const found = written.indexOf(text.slice(offset, offset + length));
  return found >= 0 ? makeSpan(at.source, at.start + found, at.start + found + length) : at;
}
