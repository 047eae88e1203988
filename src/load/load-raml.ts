/**
 * Load stage: the root RAML file and everything it `!include`s, as one located YAML tree.
 *
 * RAML 0.8 §Includes: a relative path is resolved against the folder of the file that contains
 * the `!include`; `.raml`, `.yaml` and `.yml` files are parsed and spliced in, anything else
 * (JSON schemas, Markdown, XSD) is inserted as text. svcgen additionally confines includes to the
 * folder of the root file, detects cycles, and bounds the expanded size.
 */
import { existsSync, readdirSync, realpathSync as realpathJs } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { fileSpan, type SourceFile, type Span } from '../diagnostics/source.js';
import { displayPath } from '../diagnostics/format.js';
import { closest } from '../util/suggest.js';
import { limits } from './budget.js';
import { parseYaml } from './parse-yaml.js';
import { readSource } from './read-source.js';
import { scalar, type YNode, type YScalar } from './ynode.js';

export interface LoadedDocument {
  /** The root file's tree with includes spliced in; undefined when the root file is not usable YAML. */
  readonly root: YNode | undefined;
  readonly rootFile: SourceFile;
  /** Folder of the root file; includes may not leave it. */
  readonly rootDir: string;
  /** Every file read, root first. */
  readonly files: readonly SourceFile[];
}

/** The libc realpath: one system call instead of an lstat per path component. */
const realpathSync = realpathJs.native;

const YAML_EXTENSIONS = new Set(['.raml', '.yaml', '.yml']);
const RAML_08_HEADER = /^#%RAML 0\.8[ \t]*$/;

export interface LoadOptions {
  /** Directory used to print paths in messages (defaults to the process's cwd). */
  readonly cwd?: string;
}

export function loadRaml(
  file: string,
  diagnostics: DiagnosticBag,
  options: LoadOptions = {},
): LoadedDocument | undefined {
  const cwd = options.cwd ?? process.cwd();
  const absolute = resolve(cwd, file);
  const rootFile = readSource(absolute, diagnostics, undefined, displayPath(absolute, cwd));
  if (!rootFile) return undefined;
  if (!checkHeader(rootFile, diagnostics)) return undefined;
  let rootDir: string;
  try {
    rootDir = dirname(realpathSync(absolute));
  } catch {
    rootDir = dirname(absolute);
  }
  const loader = new IncludeLoader(rootDir, diagnostics, cwd);
  const parsed = loader.parseFile(rootFile, realpathOr(absolute));
  // Past a size or nesting limit the tree is truncated; reading it would only add noise.
  const root = loader.limitHit ? undefined : parsed;
  return { root, rootFile, rootDir, files: loader.files };
}

/**
 * RAML 0.8 §Markup Language: the first line is exactly `#%RAML 0.8`. Blank lines before it are
 * tolerated with a warning, as raml-1-parser does.
 */
function checkHeader(source: SourceFile, diagnostics: DiagnosticBag): boolean {
  const lines = source.text.split(/\r?\n/);
  const firstUsed = lines.findIndex((line) => line.trim() !== '');
  const firstLine = lines[Math.max(0, firstUsed)] ?? '';
  if (RAML_08_HEADER.test(firstLine)) {
    if (firstUsed > 0)
      diagnostics.report('SVC1101', 'blank lines before `#%RAML 0.8`; the header should be the first line', {
        span: fileSpan(source),
        severity: 'warning',
      });
    return true;
  }
  const version = /^#%RAML\s+(\S+)/.exec(firstLine)?.[1];
  // `#%RAML  0.8`, `#%RAML 0.8 # notes`: the version svcgen reads, written otherwise ("this is a
  // RAML 0.8 document; svcgen reads RAML 0.8", a probe was told).
  const otherVersion = version !== undefined && version !== '0.8';
  diagnostics.report(
    'SVC1101',
    otherVersion
      ? `this is a RAML ${version} document; svcgen reads RAML 0.8`
      : 'the file does not start with `#%RAML 0.8`',
    {
      span: fileSpan(source),
      hint: otherVersion
        ? undefined
        : version
          ? 'write the first line as `#%RAML 0.8` exactly: one space, nothing after it'
          : 'make `#%RAML 0.8` the very first line of the file',
    },
  );
  return false;
}

/** What an include that failed (and was reported) becomes: readers skip it silently. */
function failedInclude(at: Span): YScalar {
  return { ...scalar(null, at), style: 'include', alreadyReported: true };
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

class IncludeLoader {
  readonly files: SourceFile[] = [];
  readonly #parsed = new Map<string, YNode>();
  /** Text files (JSON, Markdown, …) already read, by real path: included often, read once. */
  readonly #texts = new Map<string, SourceFile>();
  /** `realpath` results by resolved path, for the same reason. */
  readonly #realpaths = new Map<string, string | undefined>();
  readonly #sizes = new WeakMap<YNode, number>();
  readonly #limitState = { reported: false };
  /** Real paths of the files being parsed right now, outermost first: a repeat is a cycle. */
  readonly #stack: string[] = [];
  #includeCount = 0;
  #totalBytes = 0;

  constructor(
    readonly rootDir: string,
    readonly diagnostics: DiagnosticBag,
    readonly cwd: string,
  ) {}

  get limitHit(): boolean {
    return this.#limitState.reported;
  }

  parseFile(source: SourceFile, realPath: string): YNode | undefined {
    this.files.push(source);
    this.#totalBytes += source.text.length;
    this.#stack.push(realPath);
    try {
      const node = parseYaml({
        source,
        diagnostics: this.diagnostics,
        sizes: this.#sizes,
        limitState: this.#limitState,
        include: (path, at) => this.include(path, at, source),
      });
      if (node) this.#parsed.set(realPath, node);
      return node;
    } finally {
      this.#stack.pop();
    }
  }

  include(path: string, at: Span, from: SourceFile): YNode {
    const nothing = failedInclude(at);
    if (++this.#includeCount > limits.maxIncludes) {
      if (!this.#limitState.reported) {
        this.#limitState.reported = true;
        this.diagnostics.report('SVC1008', `more than ${limits.maxIncludes.toLocaleString('en-US')} includes`, {
          span: at,
        });
      }
      return nothing;
    }
    const target = this.resolveTarget(path, at, from);
    if (!target) return nothing;
    const cached = this.#parsed.get(target);
    if (cached) return cached;
    const text = this.#texts.get(target);
    if (text) return this.textNode(text, at);
    if (this.#stack.includes(target)) {
      const chain = [...this.#stack.slice(this.#stack.indexOf(target)), target].map((p) => this.show(p)).join(' → ');
      this.diagnostics.report('SVC1012', `include cycle: ${chain}`, { span: at });
      return nothing;
    }
    const source = readSource(target, this.diagnostics, at, this.show(target));
    if (!source) return nothing;
    if (this.#totalBytes + source.text.length > limits.maxTotalBytes) {
      this.diagnostics.report(
        'SVC1002',
        `the included files together exceed ${limits.maxTotalBytes / (1024 * 1024)} MiB`,
        { span: at },
      );
      return nothing;
    }
    if (YAML_EXTENSIONS.has(extname(target).toLowerCase())) return this.parseFile(source, target) ?? nothing;
    this.files.push(source);
    this.#totalBytes += source.text.length;
    this.#texts.set(target, source);
    return this.textNode(source, at);
  }

  /** A text include: the file's content as a string, located at the `!include`. */
  textNode(source: SourceFile, at: Span): YScalar {
    const text: YScalar = {
      kind: 'scalar',
      value: source.text,
      text: source.text,
      style: 'include',
      span: at,
      includedFile: source,
    };
    this.#sizes.set(text, 1);
    return text;
  }

  realpath(path: string): string | undefined {
    if (this.#realpaths.has(path)) return this.#realpaths.get(path);
    let real: string | undefined;
    try {
      real = realpathSync(path);
    } catch {
      real = undefined;
    }
    this.#realpaths.set(path, real);
    return real;
  }

  /** The real path of an include target, or undefined after reporting why it cannot be used. */
  resolveTarget(path: string, at: Span, from: SourceFile): string | undefined {
    if (path === '') {
      this.diagnostics.report('SVC1014', '!include needs a file path', { span: at });
      return undefined;
    }
    if (path.includes('<<')) {
      this.diagnostics.report('SVC1014', `include paths cannot use parameters: ${path}`, {
        span: at,
        hint: 'RAML resolves includes before resource types and traits are applied',
      });
      return undefined;
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(path) && !/^[a-z]:[\\/]/i.test(path)) {
      this.diagnostics.report('SVC1013', `svcgen does not fetch remote includes: ${path}`, {
        span: at,
        hint: 'save the file next to the API and include it by relative path',
      });
      return undefined;
    }
    if (path.includes('\0')) {
      this.diagnostics.report('SVC1014', 'include path contains a NUL character', { span: at });
      return undefined;
    }
    const resolved = resolve(dirname(from.path), path);
    const real = this.realpath(resolved);
    if (real === undefined) {
      if (!this.inside(resolved)) {
        this.reportOutside(path, at);
        return undefined;
      }
      this.diagnostics.report('SVC1010', `included file not found: ${path}`, {
        span: at,
        hint:
          this.suggestSibling(path, resolved) ??
          this.suggestFolder(path, resolved) ??
          `paths are relative to the including file's folder, ${this.show(dirname(from.path))}`,
      });
      return undefined;
    }
    if (!this.inside(real)) {
      this.reportOutside(path, at);
      return undefined;
    }
    return real;
  }

  inside(path: string): boolean {
    const rel = relative(this.rootDir, path);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && !rel.split(sep).includes('..');
  }

  reportOutside(path: string, at: Span): void {
    this.diagnostics.report('SVC1011', `include leaves the API folder: ${path}`, {
      span: at,
      hint: `only files inside ${this.show(this.rootDir)} (the folder of the root RAML file) can be included`,
    });
  }

  /** "did you mean `schemas/item.json`?" when a file in the same folder has a close name. */
  suggestSibling(written: string, resolved: string): string | undefined {
    try {
      const names = readdirSync(dirname(resolved));
      const match = closest(basename(resolved), names);
      const folder = written.includes('/') ? written.slice(0, written.lastIndexOf('/') + 1) : '';
      return match ? `did you mean \`${folder}${match}\`?` : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * "did you mean `schemas/review.json`?" when the file is in a folder whose name is close to the
   * one written (`schema/review.json`): a folder beside it, inside the API's folder.
   */
  suggestFolder(written: string, resolved: string): string | undefined {
    const folder = dirname(resolved);
    const parent = dirname(folder);
    if (!written.includes('/') || !this.inside(join(parent, 'x'))) return undefined;
    try {
      const folders = readdirSync(parent, { withFileTypes: true })
        .filter((e) => e.isDirectory() && existsSync(join(parent, e.name, basename(resolved))))
        .map((e) => e.name);
      const match = closest(basename(folder), folders);
      if (!match) return undefined;
      const before = written.slice(0, written.lastIndexOf('/'));
      const prefix = before.includes('/') ? before.slice(0, before.lastIndexOf('/') + 1) : '';
      return `did you mean \`${prefix}${match}/${basename(resolved)}\`?`;
    } catch {
      return undefined;
    }
  }

  show(path: string): string {
    return displayPath(path, this.cwd);
  }
}
