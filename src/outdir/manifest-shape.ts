/**
 * Reads `.svcgen/manifest.json` as the untrusted input it is: the manifest decides
 * what svcgen may overwrite and delete, so anything but the shape svcgen writes (manifest.ts) is
 * a located SVC3001, and a path that is not a plain relative path an SVC3002 — never a guess.
 */
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { span, type SourceFile, type Span } from '../diagnostics/source.js';
import { parseJsonLocated } from '../load/json.js';
import type { YMap, YNode } from '../load/ynode.js';
import type { Owner } from '../output.js';
import { isMigrationPath, type GeneratorStamp, type Manifest, type ManifestEntry } from './manifest.js';
import { lexicalProblem } from './paths.js';

const HASH = /^[0-9a-f]{64}$/;
const START_OVER =
  'svcgen reads only the manifest it writes; if the out-dir is yours, delete `.svcgen/manifest.json` and generate again (with --force to overwrite the generated files svcgen then no longer recognises)';

/** The manifest in `source`, or undefined when it is not one (reported into `bag`). */
export function parseManifest(source: SourceFile, bag: DiagnosticBag): Manifest | undefined {
  const before = bag.size;
  const { node, problems } = parseJsonLocated(source.text, (start, end) => span(source, start, end));
  for (const p of problems) {
    const message =
      p.duplicateKey !== undefined
        ? `the manifest has the key "${p.duplicateKey}" twice`
        : `the manifest is not valid JSON: ${p.message}`;
    bag.report('SVC3001', message, { span: span(source, p.offset, p.end), hint: START_OVER });
  }
  if (!node) return undefined;
  const manifest = readRoot(node, bag);
  return bag.size === before ? manifest : undefined;
}

function readRoot(node: YNode, bag: DiagnosticBag): Manifest | undefined {
  if (!expectMap(node, 'the manifest', bag)) return undefined;
  unknownKeys(node, ['generator', 'svcgen', 'raml', 'api', 'input', 'listed', 'files'], 'the manifest', bag);
  const generator = field(node, 'generator');
  if (generator?.kind !== 'scalar' || generator.value !== 'svcgen') {
    invalid(
      generator?.span ?? node.span,
      generator ? '"generator" must be "svcgen"' : 'the manifest has no "generator": "svcgen"',
      bag,
    );
  }
  const svcgen = readStamp(node, bag);
  const raml = requiredString(node, 'raml', bag);
  const api = optionalString(node, 'api', bag);
  const input = optionalString(node, 'input', bag);
  const listed = optionalString(node, 'listed', bag);
  const filesNode = field(node, 'files');
  if (!filesNode) invalid(node.span, 'the manifest has no "files"', bag);
  const files = filesNode && expectMap(filesNode, '"files"', bag) ? readFiles(filesNode, bag) : undefined;
  if (raml === undefined || !files) return undefined;
  return {
    generator: 'svcgen',
    ...(svcgen ? { svcgen } : {}),
    raml,
    ...(api !== undefined ? { api } : {}),
    ...(input !== undefined ? { input } : {}),
    ...(listed !== undefined ? { listed } : {}),
    files,
  };
}

/** `"svcgen": { "version", "build" }`, which a manifest of an older svcgen does not have. */
function readStamp(node: YMap, bag: DiagnosticBag): GeneratorStamp | undefined {
  const stamp = field(node, 'svcgen');
  if (!stamp || !expectMap(stamp, '"svcgen"', bag)) return undefined;
  unknownKeys(stamp, ['version', 'build'], '"svcgen"', bag);
  const version = requiredString(stamp, 'version', bag, '"svcgen"');
  const build = requiredString(stamp, 'build', bag, '"svcgen"');
  return version !== undefined && build !== undefined ? { version, build } : undefined;
}

function readFiles(node: YMap, bag: DiagnosticBag): Record<string, ManifestEntry> {
  // No prototype: a path such as `__proto__` or `constructor` is an ordinary key here.
  const files = Object.create(null) as Record<string, ManifestEntry>;
  for (const { key, value } of node.entries) {
    const problem =
      lexicalProblem(key.text) ??
      (key.text === '.svcgen' || key.text.startsWith('.svcgen/')
        ? "it is in `.svcgen/`, svcgen's own folder"
        : undefined);
    if (problem) {
      bag.report('SVC3002', `refusing the manifest entry ${JSON.stringify(key.text)}: ${problem}`, {
        span: key.span,
        hint: 'svcgen writes and deletes only plain relative paths inside the out-dir, and never records another kind in its manifest: the manifest was edited',
      });
    }
    const entry = readEntry(value, key.text, bag);
    if (entry && !problem) files[key.text] = entry;
  }
  return files;
}

const OWNERS: readonly Owner[] = ['generated', 'migration', 'user'];

function readEntry(node: YNode, path: string, bag: DiagnosticBag): ManifestEntry | undefined {
  const what = `the entry of ${JSON.stringify(path)}`;
  if (!expectMap(node, what, bag)) return undefined;
  unknownKeys(node, ['owner', 'sha256', 'source', 'unused'], what, bag);
  const ownerNode = field(node, 'owner');
  const owner =
    ownerNode?.kind === 'scalar' && OWNERS.includes(ownerNode.value as Owner) ? (ownerNode.value as Owner) : undefined;
  if (!owner) {
    invalid(
      ownerNode?.span ?? node.span,
      ownerNode
        ? `"owner" of ${JSON.stringify(path)} must be "generated", "migration" or "user"`
        : `${what} has no "owner"`,
      bag,
    );
    return undefined;
  }
  // svcgen records as migrations only the files of src/db/migrations/ (a probe's edited entry made a
  // stub of the user's a migration that "is gone", SVC3106, with the hint to restore it).
  if (owner === 'migration' && !isMigrationPath(path)) {
    invalid(
      ownerNode!.span,
      `"owner" of ${JSON.stringify(path)} is "migration", which only a migration of src/db/migrations/ is`,
      bag,
    );
    return undefined;
  }
  const sha256 = hash(node, 'sha256', path, bag);
  const source = hash(node, 'source', path, bag);
  const unusedNode = field(node, 'unused');
  if (unusedNode && !(unusedNode.kind === 'scalar' && unusedNode.value === true && owner === 'user')) {
    invalid(unusedNode.span, `"unused" of ${JSON.stringify(path)} can only be true, on a user-owned file`, bag);
  }
  if (owner === 'generated' || owner === 'migration') {
    if (sha256 === undefined && !field(node, 'sha256'))
      invalid(node.span, `${what} has no "sha256": svcgen records the hash of every file it writes`, bag);
    return { owner, ...(sha256 !== undefined ? { sha256 } : {}), ...(source !== undefined ? { source } : {}) };
  }
  if (source !== undefined)
    invalid(
      field(node, 'source')!.span,
      `"source" of ${JSON.stringify(path)}: a user-owned file has no rendering hash`,
      bag,
    );
  // Manifests of earlier versions record a hash for user-owned files too; it is not used.
  return { owner, ...(unusedNode ? { unused: true } : {}) };
}

function hash(node: YMap, key: string, path: string, bag: DiagnosticBag): string | undefined {
  const value = field(node, key);
  if (!value) return undefined;
  if (value.kind === 'scalar' && typeof value.value === 'string' && HASH.test(value.value)) return value.value;
  invalid(
    value.span,
    `"${key}" of ${JSON.stringify(path)} must be a SHA-256 hash: 64 lowercase hexadecimal digits in a string`,
    bag,
  );
  return undefined;
}

function requiredString(node: YMap, key: string, bag: DiagnosticBag, what = 'the manifest'): string | undefined {
  const value = field(node, key);
  if (!value) invalid(node.span, `${what} has no "${key}"`, bag);
  return value ? optionalString(node, key, bag) : undefined;
}

function optionalString(node: YMap, key: string, bag: DiagnosticBag): string | undefined {
  const value = field(node, key);
  if (!value) return undefined;
  if (value.kind === 'scalar' && typeof value.value === 'string') return value.value;
  invalid(value.span, `"${key}" must be a string`, bag);
  return undefined;
}

function expectMap(node: YNode, what: string, bag: DiagnosticBag): node is YMap {
  if (node.kind === 'map') return true;
  invalid(node.span, `${what} must be a JSON object, not ${describe(node)}`, bag);
  return false;
}

function unknownKeys(node: YMap, known: readonly string[], what: string, bag: DiagnosticBag): void {
  for (const { key } of node.entries)
    if (!known.includes(key.text)) invalid(key.span, `unknown key "${key.text}" in ${what}`, bag);
}

function field(node: YMap, key: string): YNode | undefined {
  return node.entries.find((e) => e.key.text === key)?.value;
}

function describe(node: YNode): string {
  if (node.kind === 'seq') return 'an array';
  if (node.kind === 'map') return 'an object';
  return node.value === null ? 'null' : typeof node.value === 'string' ? 'a string' : `a ${typeof node.value}`;
}

function invalid(at: Span, message: string, bag: DiagnosticBag): void {
  bag.report('SVC3001', message, { span: at, hint: START_OVER });
}
