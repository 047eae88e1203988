/**
 * The project templates (`templates/project/*.hbs`), rendered with a typed view. Templates are
 * compiled once per process. Handlebars runs in strict mode (a name the view lacks is an error,
 * not an empty string) and without HTML escaping: views hold code, made safe by
 * `plan/literal.ts`, not markup.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Handlebars from 'handlebars';
import { TEMPLATE_ROOT } from '../util/svcgen-files.js';
import type { TemplateName, TemplateSource, Views } from '../plan/views.js';

const handlebars = Handlebars.create();
const compiled = new Map<string, Handlebars.TemplateDelegate>();

/** Renders `templates/project/<name>.hbs` with its view. */
export function render<K extends TemplateName>(name: K, view: Views[K]): string {
  let template = compiled.get(name);
  if (!template) {
    const source = readFileSync(join(TEMPLATE_ROOT, `${name}.hbs`), 'utf8');
    template = handlebars.compile(source, { noEscape: true, strict: true, preventIndent: true });
    compiled.set(name, template);
  }
  return template(view);
}

/** Renders a planned template file (the view that goes with its template, whichever it is). */
export function renderSource<K extends TemplateName>(source: TemplateSource<K>): string {
  return render(source.template, source.view);
}
