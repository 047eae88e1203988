/**
 * The accessors of the generated client, one per resource, mirroring the routes the API has:
 * `/posts` and `/posts/{slug}` are `api.posts` (`list`, `get(slug)`, …), a route below an item is
 * a function of the item's key on its parent's accessor (`api.posts.comments(slug).list()`,
 * `api.authors.address(id).get()`), and each accessor has exactly the methods its routes serve.
 */
import { isSafeIdentifier } from '../../ir/naming.js';
import type { Action, Model, Route, ServiceIR } from '../../ir/types.js';
import { commentText, quote } from '../shared/literal.js';
import { requiredParentLink } from '../shared/parent-link.js';
import { keptByReplace } from '../shared/replacement.js';
import { searchFields } from '../shared/search.js';
import { camel, kebab, withArticle } from '../shared/names.js';
import { clientTypeNames } from './types.js';
import { changesUnseen } from '../../acl/unseen-writes.js';
import { helperNames, type HelperNames } from './helper-names.js';

/** One accessor: a factory `function <name>(http: Http, prefix: string)` returning its methods and children. */
export interface AccessorView {
  readonly name: string;
  readonly doc: string;
  /** Its path below `prefix`: `/posts`. */
  readonly segment: string;
  readonly members: readonly MemberView[];
}

/** `list: (query?: …) => op.list<Post>(http, path, query)`, or a child: `comments: (slug: Key) => postsComments(http, …)`. */
export interface MemberView {
  readonly name: string;
  readonly doc: string;
  /** `<K extends …>` of a read whose answer's type follows its `fields`, or empty. */
  readonly typeParams: string;
  readonly params: string;
  readonly body: string;
}

interface Node {
  readonly statics: readonly string[];
  readonly routes: Route[];
  readonly children: Map<string, Node>;
}

/** Accessor names that stand for the methods of its routes: a child resource takes another name. */
const METHODS = [
  'list',
  'all',
  'count',
  'search',
  'create',
  'updateMany',
  'deleteMany',
  'get',
  'update',
  'replace',
  'delete',
  'merge',
];

export interface Accessors {
  /** `posts: postsResource(http, '')` for each top-level resource. */
  readonly top: readonly { readonly name: string; readonly factory: string }[];
  readonly factories: readonly AccessorView[];
  /** How a route is reached from the client: `posts`, then `comments(<the slug>)`. */
  readonly access: ReadonlyMap<Route, readonly AccessStep[]>;
}

/** A step from the client to a route's accessor: a property, or a function of a parent's key. */
export interface AccessStep {
  readonly name: string;
  /** The path parameter whose key the step takes, or null for a top-level resource. */
  readonly param: string | null;
}

/** The client's accessors (`auth` is taken by the auth routes where the API has them). */
export function clientAccessors(ir: ServiceIR): Accessors {
  return accessors(ir, ir.auth ? ['auth'] : []);
}

function accessors(ir: ServiceIR, reserved: readonly string[]): Accessors {
  const root: Node = { statics: [], routes: [], children: new Map() };
  for (const route of ir.routes) place(root, route);
  const models = new Map(ir.models.map((m) => [m.name, m]));
  // Changes that a caller who may not read the object is answered with a status body.
  const unseen = new Set(ir.routes.filter((route) => changesUnseen(ir, route)));
  const names = helperNames(ir);
  const factories: AccessorView[] = [];
  const access = new Map<Route, readonly AccessStep[]>();
  const visit = (node: Node, steps: readonly AccessStep[]): string => {
    const factory = `${camel(node.statics.join('-')) || 'root'}Resource`;
    for (const route of node.routes) access.set(route, steps);
    factories.push(accessorView(node, factory, { models, unseen, names }, steps, visit));
    return factory;
  };
  const taken = new Set(reserved);
  const top = [...root.children.values()].map((child) => {
    const name = uniqueName(memberName(child), taken);
    return { name, factory: visit(child, [{ name, param: null }]) };
  });
  return { top, factories, access };
}

/** `/posts/:slug/comments/:id` → below `posts`, then `comments`. */
function place(root: Node, route: Route): void {
  let node = root;
  for (const group of staticGroups(route.path)) {
    let child = node.children.get(group);
    if (!child) {
      child = { statics: [...node.statics, group], routes: [], children: new Map() };
      node.children.set(group, child);
    }
    node = child;
  }
  node.routes.push(route);
}

/** The static parts of a path between its parameters: `/a/b/:x/c` → `a/b`, `c`. */
function staticGroups(path: string): string[] {
  const groups: string[][] = [[]];
  for (const segment of path.split('/').filter(Boolean)) {
    if (segment.startsWith(':')) groups.push([]);
    else groups[groups.length - 1]!.push(segment);
  }
  return groups.filter((g) => g.length).map((g) => g.join('/'));
}

function memberName(node: Node): string {
  const name = camel(kebab(node.statics[node.statics.length - 1]!));
  return isSafeIdentifier(name) ? name : `${name || 'resource'}Resource`;
}

function uniqueName(wanted: string, taken: Set<string>): string {
  let candidate = taken.has(wanted) ? `${wanted}Resource` : wanted;
  for (let i = 2; taken.has(candidate); i++) candidate = `${wanted}Resource${i}`;
  taken.add(candidate);
  return candidate;
}

/** The type a change of one object answers, and what its doc adds about it. */
interface Changed {
  type(type: string): string;
  readonly note: string;
}

/** What the members of a route need to know of the API besides the route. */
interface Known {
  readonly models: ReadonlyMap<string, Model>;
  /** Routes whose changes may be answered with a status body (`changesUnseen`). */
  readonly unseen: ReadonlySet<Route>;
  /** What index.ts calls the client's helpers (a model may have taken a name). */
  readonly names: HelperNames;
}

function accessorView(
  node: Node,
  factory: string,
  known: Known,
  steps: readonly AccessStep[],
  visit: (node: Node, steps: readonly AccessStep[]) => string,
): AccessorView {
  const members = node.routes.flatMap((route) => routeMembers(route, known));
  const taken = new Set(METHODS);
  const children = [...node.children.values()].map((child): MemberView => {
    // A child is reached through an item of this resource: the key is the child's parent key.
    const parentParam = child.routes[0]!.parent?.param ?? 'key';
    const param = keyParameter(parentParam);
    const name = uniqueName(memberName(child), taken);
    return member(
      name,
      `${child.routes.map((r) => r.ramlPath).join(', ')}, below one item.`,
      `${param}: ${known.names('Key')}`,
      `${visit(child, [...steps, { name, param: parentParam }])}(http, \`\${path}\${keySegment(${param})}\`)`,
    );
  });
  return {
    name: factory,
    doc: commentText(node.routes.map((r) => r.ramlPath).join(', ') || `/${node.statics.join('/{…}/')}`),
    segment: `/${node.statics[node.statics.length - 1]!}`.replace(/[\\`]|\$\{/g, (c) => `\\${c}`),
    members: [...members, ...children],
  };
}

const has = (route: Route, action: Action) => route.operations.some((o) => o.action === action);

function routeMembers(route: Route, { models, unseen, names }: Known): MemberView[] {
  const model = models.get(route.model)!;
  // What a change answers: the object, or a status body to a caller who may not read it.
  const changed: Changed = unseen.has(route)
    ? { type: (type) => `${type} | op.StatusBody`, note: ' A caller who may not read it gets a status body.' }
    : { type: (type) => type, note: '' };
  switch (route.kind) {
    case 'collection':
      return collectionMembers(route, model, names);
    case 'item':
      return oneMembers(route, model, keyParameter(route.itemParam!), changed, names);
    case 'singular':
      return oneMembers(route, model, undefined, changed, names);
    case 'attribute':
      return attributeMembers(route, models.get(route.parent!.model) ?? model, changed);
  }
}

function collectionMembers(route: Route, model: Model, names: HelperNames): MemberView[] {
  const t = clientTypeNames(model);
  const read = choosing(t, names);
  const query = read.query(`${names('ListQuery')}<${t.where}, ${t.field}>`);
  const members: MemberView[] = [];
  if (has(route, 'index')) {
    members.push(
      read.member(
        'list',
        'One page of the objects the query selects.',
        `query?: ${query}`,
        `op.list<${read.shown}>(http, path, query)`,
      ),
      read.member(
        'all',
        'Every object the query selects, page after page.',
        `query?: ${query}`,
        `op.all<${read.shown}>(http, path, query)`,
      ),
      member(
        'count',
        'How many objects the filters select.',
        `selection?: ${names('Selection')}<${t.where}>`,
        'op.count(http, path, selection)',
      ),
    );
    const searched = searchFields(model).map((f) => JSON.stringify(f.name));
    if (searched.length)
      members.push(
        read.member(
          'search',
          `Full-text search in ${searchFields(model)
            .map((f) => f.name)
            .join(', ')}, best matches first.`,
          `text: string, query?: ${read.query(`${names('SearchQuery')}<${t.where}, ${t.field}, ${searched.join(' | ')}>`)}`,
          `op.search<${read.shown}>(http, path, text, query)`,
        ),
      );
  }
  if (has(route, 'create'))
    members.push(
      member(
        'create',
        `Creates ${withArticle(model.name)}.`,
        `body: ${createBody(route, model)}`,
        `op.create<${t.item}>(http, path, body)`,
      ),
    );
  const bulk = route.operations.find((o) => o.action === 'update_many');
  if (bulk)
    members.push(
      member(
        'updateMany',
        'Changes every object `where` selects (all of them when it is empty); answers how many changed.',
        `where: ${t.where}, changes: ${t.update}`,
        `op.updateMany(http, '${bulk.method === 'PUT' && !route.operations.some((o) => o.method === 'PATCH') ? 'PUT' : 'PATCH'}', path, where, changes)`,
      ),
    );
  if (has(route, 'delete_many'))
    members.push(
      member(
        'deleteMany',
        'Deletes every object `where` selects (all of them when it is empty); answers how many went.',
        `where: ${t.where}`,
        'op.deleteMany(http, path, where)',
      ),
    );
  return members;
}

/** The methods of one object: an item (by its key) or a singular route's object. */
function oneMembers(
  route: Route,
  model: Model,
  key: string | undefined,
  changed: Changed,
  names: HelperNames,
): MemberView[] {
  const t = clientTypeNames(model);
  const keyParam = key ? `${key}: ${names('Key')}, ` : '';
  const url = key ? `path + keySegment(${key})` : 'path';
  const members: MemberView[] = [];
  if (has(route, 'show')) {
    const read = choosing(t, names);
    members.push(
      read.member(
        'get',
        'The object (its ETag: `etagOf(object)`).',
        `${keyParam}options?: ${read.query(`${names('ReadOptions')}<${t.field}>`)}`,
        `op.get<${read.shown}>(http, ${url}, options)`,
      ),
    );
  }
  if (!key && has(route, 'create'))
    members.push(
      member(
        'create',
        `Creates the ${model.name} object.`,
        `body: ${createBody(route, model)}`,
        `op.create<${t.item}>(http, path, body)`,
      ),
    );
  if (has(route, 'update'))
    members.push(
      member(
        'update',
        `Changes the fields given (PATCH).${changed.note}`,
        `${keyParam}changes: ${t.update}, options?: WriteOptions`,
        `op.update<${changed.type(t.item)}>(http, ${url}, changes, options)`,
      ),
    );
  if (has(route, 'replace'))
    members.push(
      member(
        'replace',
        `Replaces the object (PUT): absent optional fields return to their defaults.${changed.note}`,
        `${keyParam}body: ${replaceBody(model)}, options?: WriteOptions`,
        `op.replace<${changed.type(t.item)}>(http, ${url}, body, options)`,
      ),
    );
  if (has(route, 'delete'))
    members.push(
      member('delete', 'Deletes the object.', `${keyParam}options?: WriteOptions`, `op.remove(http, ${url}, options)`),
    );
  return members;
}

/** A dict or list field: its value as the parent's answers type it (an absent one reads as empty). */
function attributeMembers(route: Route, owner: Model, changed: Changed): MemberView[] {
  const value = `NonNullable<${clientTypeNames(owner).item}[${quote(route.attribute!)}]>`;
  const members: MemberView[] = [];
  if (has(route, 'index'))
    members.push(member('get', `The ${route.attribute} field's value.`, '', `op.attribute<${value}>(http, path)`));
  if (has(route, 'create'))
    members.push(
      member(
        'merge',
        `Merges keys into ${route.attribute} (a dict), or adds items to it (a list: \`{ item: true }\`, \`"-item"\` removes); answers the new value.${changed.note}`,
        'value: Readonly<Record<string, unknown>>',
        `op.merge<${changed.type(value)}>(http, path, value)`,
      ),
    );
  return members;
}

/** A create's body type: below a parent, without the link to it that the URL gives (when the model requires one). */
function createBody(route: Route, model: Model): string {
  const link = requiredParentLink(route, model, 'create');
  const type = clientTypeNames(model).create;
  return link ? `Omit<${type}, ${JSON.stringify(link)}>` : type;
}

/** A replacement's body: the create's, but the required fields a PUT keeps (write-once ones, a password) it may leave out. */
function replaceBody(model: Model): string {
  const type = clientTypeNames(model).create;
  const kept = keptByReplace(model).filter((f) => f.requiredOnCreate);
  if (kept.length === 0) return type;
  const names = kept.map((f) => JSON.stringify(f.name)).join(' | ');
  return `Omit<${type}, ${names}> & Partial<Pick<${type}, ${names}>>`;
}

function member(name: string, doc: string, params: string, body: string): MemberView {
  return { name, doc: commentText(doc), typeParams: '', params, body };
}

/**
 * A read whose answer's type follows the `fields` the call writes (`K`, inferred from it): its
 * query or options type, the object's type as answered, and the member with `K` declared.
 */
function choosing(t: ReturnType<typeof clientTypeNames>, names: HelperNames) {
  return {
    query: (type: string) => `${names('Choosing')}<${type}, K>`,
    shown: `${names('Shown')}<${t.item}, K>`,
    member: (name: string, doc: string, params: string, body: string): MemberView => ({
      ...member(name, doc, params, body),
      typeParams: `<K extends ${names('FieldChoice')}<${t.field}> = never>`,
    }),
  };
}

function keyParameter(param: string): string {
  const name = camel(param);
  return isSafeIdentifier(name) && !['http', 'path', 'op', 'options', 'body', 'changes', 'query'].includes(name)
    ? name
    : `${name || 'key'}Key`;
}
