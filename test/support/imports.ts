/**
 * The import graph of a source tree, for the architecture tests: every relative import, static or
 * dynamic, type-only ones too (a type is a dependency all the same), as paths from a common root
 * with `.ts` for what the source writes as `.js`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+|^export\s+\*\s+from\s+)'(\.[^']+)'/gm;

/** The files below `dir` (relative to `root`, with `/`), skipping node_modules. */
export function sourceFiles(root: string, dir: string, extension = /\.ts$/): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(root, path, extension);
    return extension.test(e.name) ? [path] : [];
  });
}

/** The relative imports of a source text at `path`, as paths from the same root. */
export function importsIn(path: string, text: string): string[] {
  return [...text.matchAll(IMPORT)].map((m) =>
    posix.normalize(posix.join(posix.dirname(path), m[1]!)).replace(/\.js$/, '.ts'),
  );
}

/** The import graph of files on disk below `root`. */
export function importGraph(root: string, files: readonly string[]): Map<string, string[]> {
  return new Map(files.map((file) => [file, importsIn(file, readFileSync(join(root, file), 'utf8'))]));
}

/** The import graph of files held in memory (a generated project). */
export function importGraphOf(files: ReadonlyMap<string, string>): Map<string, string[]> {
  return new Map([...files].map(([path, text]) => [path, importsIn(path, text)]));
}

/**
 * The import cycles of a graph: its strongly connected components of more than one file, and
 * files that import themselves (Tarjan's algorithm), each as its files, sorted.
 */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return cycles.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}
