/** What a route's action does, in words, for the README's route table and the OpenAPI document's summaries. */
import { withArticle } from './names.js';

/** A one-line summary of what an action does on a route, for the README and the OpenAPI document. */
export function routeSummary(kind: string, model: string, action: string): string {
  const what: Record<string, string> = {
    index: kind === 'attribute' ? 'read the field' : `list ${model} objects`,
    create: kind === 'attribute' ? 'merge into the field' : `create ${withArticle(model)}`,
    update_many: `change the ${model} objects the filters select`,
    delete_many: `delete the ${model} objects the filters select`,
    show: `read ${withArticle(model)}`,
    update: `change fields of ${withArticle(model)}`,
    replace: `replace ${withArticle(model)}`,
    delete: `delete ${withArticle(model)}`,
    collection_options: 'list the allowed methods',
    item_options: 'list the allowed methods',
  };
  const text = what[action] ?? action;
  return text.charAt(0).toUpperCase() + text.slice(1);
}
