/**
 * Porting a Ramses API's Python functions (issue 29): the stubs are typed by the API, the caller
 * included (`request.user` is the user model's type, not a record to cast), and the generated
 * README says where each Python idiom went.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/pipeline.js';
import { eventTypesView } from '../../src/plan/events/views.js';
import { generateFixture } from '../support/generated.js';
import { repoRoot } from '../support/paths.js';

describe('the types user code gets, and the porting table', () => {
  it('types the caller of handlers, processors and principals as the signed-in user', async () => {
    const tree = await generateFixture('ramses-example');
    // The user's own row, as request.user holds it: without the links kept in other models' rows, or the hash.
    expect(tree.get('src/models/user.ts')!.content).toContain(
      "export type SignedInUser = Omit<User, 'assigned_stories' | 'profile' | 'stories' | 'password'>;",
    );
    const events = tree.get('src/events.ts')!.content;
    expect(events).toContain("import type { SignedInUser, User } from './models/user.js';");
    expect(events).toContain('export type StoryEvent = HandlerEvent<Story, Database, SignedInUser>;');
    expect(events).toContain(
      'type ProcessorArgsOf<T, K extends keyof T> = ProcessorArgs<T, K, Database, SignedInUser>;',
    );
    expect(tree.get('src/model-events.ts')!.content).toContain('modelEvents<Story, Database, SignedInUser>(storyModel');
    const principal = tree.get('src/custom/principals/item-owner.ts')!.content;
    expect(principal).toMatch(
      /export function itemOwner\(\s*request: RequestBy<SignedInUser>,\s*object: ItemOwnerObject \| undefined,/,
    );
    // The object's type is generated: a model whose x-ACL comes to name the principal widens it.
    expect(tree.get('src/principals.ts')!.content).toContain('export type ItemOwnerObject = Story;');
    // Stubs are the user's: those written before SignedInUser take RequestBy<User>, which still fits here.
    expect(tree.get('src/auth.ts')!.content).toContain('dynamicPrincipal<ItemOwnerObject, SignedInUser, User>(');
  });

  it('leaves the caller a plain record where the API has no authentication', () => {
    const { ir } = analyze(join(repoRoot, 'fixtures/events/api.raml'), { cwd: repoRoot });
    const view = eventTypesView({ ...ir!, auth: null });
    expect(view.modelEventTypes.map((t) => `Event<${t.model}, Database${view.user}>`)).toEqual([
      'Event<Project, Database>',
      'Event<Task, Database>',
      'Event<User, Database>',
    ]);
    expect(view.modelTypeImports.map((i) => i.name)).toEqual(['Project', 'Task', 'User']);
  });

  it('has a table from each Python idiom to its TypeScript', async () => {
    const readme = (await generateFixture('ramses-example')).get('README.md')!.content;
    const table = readme.slice(readme.indexOf('### Porting your Python code'));
    for (const idiom of [
      'event.set_field_value',
      "event.fields['name'].new_value",
      'event.instance',
      'event.response',
      'event.view.request.user',
      'get_collection',
      'get_item',
      '_update_many',
      '{{item_owner}}',
      '@registry.add',
    ])
      expect(table, idiom).toContain(idiom);
  });
});
