/**
 * `_event_handlers` of a schema: tags `before_<action>` / `after_<action>` (also the
 * actions with underscores, which crashed Ramses) and `set`, each a list of handler names.
 */
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import { isMap, isScalar, isSeq } from '../../load/ynode.js';
import { didYouMean } from '../../util/suggest.js';
import { isSafeIdentifier, reservedWordHint } from '../naming.js';
import { ACTIONS, AUTH_ACTIONS, type EventAction, type EventBinding } from '../types.js';
import type { ModelDraft } from './models.js';
import type { HandlerUse } from '../sources.js';

/** `set` = every action that writes fields. */
const SET_ACTIONS: readonly EventAction[] = ['create', 'update', 'replace', 'update_many', 'register'];

const ALL_TAGS = ['before', 'after'].flatMap((phase) =>
  [...ACTIONS, ...AUTH_ACTIONS, 'set'].map((a) => `${phase}_${a}`),
);

export function readEventHandlers(
  diagnostics: DiagnosticBag,
  model: ModelDraft,
): { bindings: EventBinding[]; uses: HandlerUse[] } {
  const entry = model.eventHandlers;
  if (!entry) return { bindings: [], uses: [] };
  if (!isMap(entry.value)) {
    diagnostics.report('SVC2006', '"_event_handlers" must be an object of event tags to handler lists', {
      span: entry.value.span,
      hint: 'e.g. "_event_handlers": {"before_create": ["set_item_owner"]}',
    });
    return { bindings: [], uses: [] };
  }
  const byEvent = new Map<string, { phase: 'before' | 'after'; action: EventAction; handlers: string[] }>();
  const uses: HandlerUse[] = [];
  for (const tagEntry of entry.value.entries) {
    const tag = tagEntry.key.text;
    const match = /^(before|after)_(.+)$/.exec(tag);
    const action = match?.[2];
    const valid =
      action !== undefined &&
      (action === 'set' ||
        (ACTIONS as readonly string[]).includes(action) ||
        (AUTH_ACTIONS as readonly string[]).includes(action));
    if (!match || !valid) {
      diagnostics.report('SVC2040', `unknown event "${tag}"`, {
        span: tagEntry.key.span,
        hint: [...ACTIONS, ...AUTH_ACTIONS, 'set'].includes(tag)
          ? `an action alone is no event: write before_${tag} or after_${tag}`
          : (didYouMean(tag, ALL_TAGS) ??
            'events are before_<action> or after_<action>; actions: ' +
              [...ACTIONS, ...AUTH_ACTIONS, 'set'].join(', ')),
      });
      continue;
    }
    const phase = match[1] as 'before' | 'after';
    const actions: readonly EventAction[] =
      action === 'set' ? SET_ACTIONS.filter((a) => a !== 'register' || model.isAuthModel) : [action as EventAction];
    if ((AUTH_ACTIONS as readonly string[]).includes(action) && !model.isAuthModel) {
      diagnostics.report(
        'SVC2041',
        `"${tag}" never fires for ${model.name}: ${action} events belong to the user model`,
        { span: tagEntry.key.span, hint: 'move it to the schema with "_auth_model": true' },
      );
    }
    if (!isSeq(tagEntry.value)) {
      diagnostics.report('SVC2006', `"${tag}" must be a list of handler names`, {
        span: tagEntry.value.span,
        hint: isScalar(tagEntry.value)
          ? `write it as a list: "${tag}": [${JSON.stringify(String(tagEntry.value.value))}]`
          : `write it as a list of names: "${tag}": ["set_owner"]`,
      });
      continue;
    }
    const names: string[] = [];
    for (const item of tagEntry.value.items) {
      const name =
        isScalar(item) && typeof item.value === 'string' ? item.text.replace(/^\{\{(.*)\}\}$/, '$1').trim() : '';
      if (!isSafeIdentifier(name)) {
        diagnostics.report('SVC2007', `${name ? `"${name}"` : 'this'} is not a valid handler name`, {
          span: item.span,
          hint: name.includes('.')
            ? 'Python dotted paths cannot be called here; name a function instead, e.g. "set_owner"'
            : (reservedWordHint(name, `"${name}_object"`) ??
              (/^[A-Za-z_][\w -]*$/.test(name)
                ? `handler names are TypeScript identifiers: did you mean "${name.replace(/[ -]+/g, '_')}"?`
                : 'handler names are TypeScript identifiers: letters, digits, "_" and "$"')),
        });
        continue;
      }
      names.push(name);
      uses.push({ name, tag, span: item.span });
    }
    for (const a of actions) {
      const key = `${phase}_${a}`;
      const binding = byEvent.get(key) ?? { phase, action: a, handlers: [] };
      binding.handlers.push(...names);
      byEvent.set(key, binding);
    }
  }
  const order = (b: EventBinding) =>
    [...ACTIONS, ...AUTH_ACTIONS].indexOf(b.action) * 2 + (b.phase === 'after' ? 1 : 0);
  const bindings = [...byEvent.values()].filter((b) => b.handlers.length > 0).sort((a, b) => order(a) - order(b));
  return { bindings, uses };
}
