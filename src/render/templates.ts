/**
 * The project templates (`templates/project/`): handlebars templates rendered with a typed view,
 * and static files copied as they are. Templates are compiled once per process. Handlebars runs
 * in strict mode (a name the view lacks is an error, not an empty string) and without HTML
 * escaping: views hold code, made safe by `plan/literal.ts`, not markup.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';

export const TEMPLATE_ROOT = fileURLToPath(new URL('../../templates/project/', import.meta.url));
const STATIC_ROOT = join(TEMPLATE_ROOT, 'static');

const handlebars = Handlebars.create();
const compiled = new Map<string, Handlebars.TemplateDelegate>();

/** Renders `templates/project/<name>.hbs` with `view`. */
export function render(name: string, view: object): string {
  let template = compiled.get(name);
  if (!template) {
    const source = readFileSync(join(TEMPLATE_ROOT, `${name}.hbs`), 'utf8');
    template = handlebars.compile(source, { noEscape: true, strict: true, preventIndent: true });
    compiled.set(name, template);
  }
  return template(view);
}

let staticFiles: readonly { readonly path: string; readonly content: string }[] | undefined;

/** Every file under `templates/project/static/`, by its path in the generated project. */
export function staticTemplates(): readonly { readonly path: string; readonly content: string }[] {
  staticFiles ??= walk(STATIC_ROOT).map((file) => ({ path: relative(STATIC_ROOT, file).split(sep).join('/'), content: readFileSync(file, 'utf8') }));
  return staticFiles;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]));
}
