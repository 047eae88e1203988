/**
 * Views of the files authentication adds to a project whose API configures it:
 * `src/auth.ts` (the schemes, the user model and every x-ACL as data), one user-owned module per
 * `{{dynamic}}` principal, and `test/acl.test.ts`, which checks the running service against the
 * ACL matrix (src/acl/matrix.ts).
 */
import { aclMatrix, CALLERS, newUserGroupsText, type CallerKind, type MatrixRow } from '../../acl/matrix.js';
import {
  CREDENTIAL_MODEL,
  LOGIN_FAILURE_MODEL,
  LOGIN_NAME_MODEL,
  type AclEntry,
  type Auth,
  type Model,
  type ServiceIR,
  type UserFunction,
} from '../../ir/types.js';
import { parentsOf } from '../../ir/parents.js';
import { commentText, literal, quote } from '../shared/literal.js';
import { camel, modelNames, pascal, principalModule } from '../shared/names.js';
import { linkToParent } from '../shared/parent-link.js';
import { localName, typeImport } from '../shared/type-imports.js';

export function authView(ir: ServiceIR, auth: Auth) {
  const user = ir.models.find((m) => m.name === auth.userModel)!;
  const userNames = modelNames(user);
  const credentialNames = modelNames({ name: CREDENTIAL_MODEL });
  const loginFailureNames = modelNames({ name: LOGIN_FAILURE_MODEL });
  const loginNameNames = modelNames({ name: LOGIN_NAME_MODEL });
  const selfRoute = userRouteServesSelf(ir, user);
  return {
    userModel: userNames.variable,
    userBodies: userNames.bodies,
    userResponse: userNames.response,
    userFile: userNames.file,
    credentialModel: credentialNames.variable,
    credentialFile: credentialNames.file,
    loginFailureModel: loginFailureNames.variable,
    loginFailureFile: loginFailureNames.file,
    loginNameModel: loginNameNames.variable,
    loginNameFile: loginNameNames.file,
    principals: ir.userCode.principals.map((p) => ({
      name: quote(p.name),
      functionName: camel(p.name),
      module: principalModule(p.name),
      objectType: principalObjectType(p.name),
    })),
    objectTypes: ir.userCode.principals.map((p) => principalObjectType(p.name)).join(', '),
    // The user model's types come with its other imports: principals get the caller as the signed-in
    // user, and those whose stubs were made before it (typed by the user model) still fit.
    callerTypes: ir.userCode.principals.length ? [modelNames(user).signedIn, user.name] : null,
    spec: {
      userRouteIsSelf: String(selfRoute),
      ticket: auth.ticket
        ? literal({
            secretSetting: auth.ticket.secretSetting,
            hashalg: auth.ticket.hashalg,
            cookieName: auth.ticket.cookieName,
            httpOnly: auth.ticket.httpOnly,
          })
        : 'null',
      apiKey: String(auth.apiKey !== null),
    },
    acls: ir.acls.map((acl) => ({
      name: quote(acl.name),
      collection: acl.collection.map(aclLine),
      item: acl.item.map(aclLine),
    })),
  };
}

/** The API's own `GET /users/{key}` answers `/users/self`; otherwise the auth routes add `GET /users/self`. */
export function userRouteServesSelf(ir: ServiceIR, user: Model): boolean {
  return ir.routes.some(
    (r) =>
      r.kind === 'item' &&
      r.model === user.name &&
      r.parent === null &&
      r.path.startsWith('/users/:') &&
      r.operations.some((o) => o.action === 'show'),
  );
}

/** One line of an x-ACL, as the runtime's AclEntry: each value as source text. */
export interface AclEntryView {
  readonly action: string;
  readonly principal: string;
  readonly permissions: string;
  readonly text: string;
}

function aclLine(entry: AclEntry): AclEntryView {
  const p = entry.principal;
  const principal =
    p.kind === 'everyone' || p.kind === 'authenticated'
      ? quote(p.kind)
      : p.kind === 'group'
        ? `{ group: ${quote(p.group)} }`
        : p.kind === 'user'
          ? `{ user: ${quote(p.id)} }`
          : `${camel(p.name)}Principal`;
  return {
    action: quote(entry.action),
    principal,
    permissions: literal([...entry.permissions]),
    text: quote(entry.text),
  };
}

/** The models whose ACLs name a principal: its object is one of theirs. */
function principalModels(principal: UserFunction): string[] {
  return [...new Set(principal.usedBy.map((u) => u.model).filter((m) => m !== ''))].sort();
}

/** The name `src/principals.ts` gives the type of a principal's object (`{{item_owner}}` → `ItemOwnerObject`). */
export function principalObjectType(name: string): string {
  return `${pascal(name)}Object`;
}

/**
 * `src/principals.ts`: the type of each principal's object, the union of the models whose x-ACLs
 * name it. Generated, so that a model whose x-ACL comes to name the principal widens the type its
 * user-owned function takes, and tsc points at that function's code, not at generated code.
 */
export function principalTypesView(ir: ServiceIR) {
  const models = [...new Set(ir.userCode.principals.flatMap(principalModels))].sort();
  return {
    imports: models.map(typeImport),
    principals: ir.userCode.principals.map((p) => {
      const of = principalModels(p);
      return {
        placeholder: `{{${p.name}}}`,
        typeName: principalObjectType(p.name),
        objectType: objectTypeOf(of, localName),
        // Several models are listed in an interface, one per line, rather than as a union: a long
        // union is laid out differently by oxfmt and prettier (test/format/formatter.test.ts).
        mapName: `${pascal(p.name)}Models`,
        models: of.length > 1 ? of.map((m) => ({ name: m, type: localName(m) })) : null,
      };
    }),
  };
}

/** The type of a principal's object: one of its models' (as `named` calls them), or any object. */
function objectTypeOf(models: readonly string[], named: (model: string) => string = (model) => model): string {
  return models.length ? models.map(named).join(' | ') : 'Record<string, unknown>';
}

export function principalStubView(ir: ServiceIR, principal: UserFunction) {
  const models = principalModels(principal);
  const userModel = ir.auth?.userModel;
  const userNames = userModel ? modelNames({ name: userModel }) : undefined;
  const named = ir.acls
    .filter((acl) => principal.usedBy.some((u) => u.acl === acl.name))
    .flatMap((acl) =>
      [...acl.collection.map((e) => ({ e, section: 'collection' })), ...acl.item.map((e) => ({ e, section: 'item' }))]
        .filter(({ e }) => e.principal.kind === 'dynamic' && e.principal.name === principal.name)
        .map(({ e, section }) => ({ section, line: `${acl.name} (${section}): ${e.text}` })),
    );
  const lines = named.map((n) => n.line);
  return {
    placeholder: `{{${principal.name}}}`,
    functionName: camel(principal.name),
    userImport: userNames ? { name: userNames.signedIn, alias: null, file: userNames.file } : null,
    objectType: principalObjectType(principal.name),
    userType: userNames?.signedIn ?? 'Record<string, unknown>',
    userModel: userModel ?? null,
    lines: lines.map(commentText),
    // Asked without the object there, for lists and for the item routes that fall back to it (SVC2081).
    inCollection: named.some((n) => n.section === 'collection'),
    // A principal of several models' x-ACLs: its `where` tells them apart by `rule.model`.
    shared: models.length > 1 ? models.join(', ') : '',
  };
}

// --- test/acl.test.ts ---------------------------------------------------------------------------

/** The view of `test/auth.test.ts`: the auth routes the API's schemes mount, called through the client. */
export function authTestView(auth: Auth) {
  return {
    userModel: quote(auth.userModel),
    userName: auth.userModel,
    ticket: auth.ticket !== null,
    apiKey: auth.apiKey !== null,
  };
}

/**
 * The ACL matrix as the test's table: the routes it reaches (what to seed for the URL's keys), and
 * one row per route and method with what each caller gets, in the order of CALLERS. Values are
 * source text.
 */
export function aclTestView(ir: ServiceIR) {
  const rows = aclMatrix(ir);
  const routes = ir.routes.filter((route) => rows.some((row) => row.route === route));
  const models = new Map(ir.models.map((m) => [m.name, m]));
  return {
    memberGroups: commentText(newUserGroupsText(ir)),
    routes: routes.map((route) => ({
      ramlPath: quote(route.ramlPath),
      kind: quote(route.kind),
      path: quote(route.path),
      model: quote(route.model),
      itemParam: route.kind === 'item' && route.itemParam ? quote(route.itemParam) : null,
      parents: parentsOf(route).map((parent, i, all) => ({
        model: quote(parent.model),
        param: quote(parent.param),
        // An attribute route's last parent is its own item, which links to nothing above it.
        link: route.kind === 'attribute' && i === all.length - 1 ? null : quotedOrNull(linkToParent(parent, models)),
      })),
    })),
    rows: rows.map((row) => ({
      method: quote(row.operation.method),
      route: quote(row.route.ramlPath),
      outcomes: CALLERS.map((caller) => outcomeOf(row, caller)),
    })),
  };
}

function outcomeOf(row: MatrixRow, caller: CallerKind): string {
  const outcome = row.outcomes[caller];
  return outcome === 'allow' ? quote('allowed') : String(outcome);
}

function quotedOrNull(text: string | null): string | null {
  return text === null ? null : quote(text);
}
