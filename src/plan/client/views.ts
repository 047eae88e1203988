/**
 * The view of `client/src/index.ts`: the API's types and accessors over the client's generic part
 * (runtime/client/), and the client package's own files.
 */
import type { ServiceIR } from '../../ir/types.js';
import type { FieldTypes } from '../shared/field-types.js';
import { commentText } from '../shared/literal.js';
import { pascal } from '../shared/names.js';
import { clientAccessors, type AccessorView } from './accessors.js';
import { helperNames, importName, type ClientHelper, type HelperNames } from './helper-names.js';
import { clientTypeNames, modelTypes, OperatorSets, type OperatorSet } from './types.js';

export interface ClientView {
  readonly title: string;
  /** `options.baseUrl` of a service on this machine: its base path included. */
  readonly exampleBaseUrl: string;
  readonly clientType: string;
  /** What index.ts takes from the client's generic modules: only what it uses (helper-names.ts names it). */
  readonly queryImports: string;
  readonly resourceImports: string;
  readonly httpImports: string;
  /** What index.ts re-exports of them, each module's list. */
  readonly exports: {
    readonly auth: string;
    readonly http: string;
    readonly query: string;
    readonly resources: string;
  };
  /** `Http` and `ClientOptions` as index.ts names them. */
  readonly http: string;
  readonly clientOptions: string;
  readonly operatorSets: readonly OperatorSet[];
  readonly types: string;
  readonly top: readonly { readonly name: string; readonly factory: string }[];
  readonly factories: readonly AccessorView[];
  readonly auth: AuthView | null;
}

export interface AuthView {
  readonly user: string;
  readonly create: string;
  readonly ticket: boolean;
  readonly apiKey: boolean;
}

export async function clientView(ir: ServiceIR, types: FieldTypes): Promise<ClientView> {
  const names = helperNames(ir);
  const sets = new OperatorSets(names);
  const models = ir.models.filter((m) => !m.internal);
  const declarations = [];
  for (const model of models) declarations.push(await modelTypes(ir, model, types, sets, names));
  const user = ir.auth ? clientTypeNames({ name: ir.auth.userModel }) : undefined;
  const tree = clientAccessors(ir);
  const code = [
    ...declarations,
    ...tree.factories.flatMap((f) => f.members.map((m) => `${m.typeParams} ${m.params} ${m.body}`)),
  ];
  return {
    title: commentText(ir.title),
    exampleBaseUrl: commentText(`http://localhost:3000${ir.basePath}`),
    clientType: `${pascal(ir.name)}Client`,
    queryImports: used(code, names, ['Filter', 'ListQuery', 'SearchQuery', 'Selection']),
    resourceImports: [
      /\bkeySegment\b/.test(code.join('\n')) ? 'keySegment' : '',
      used(code, names, ['Key', 'ReadOptions', 'WriteOptions', 'FieldChoice', 'Choosing', 'Shown'], true),
    ]
      .filter(Boolean)
      .join(', '),
    httpImports: [importName(names, 'Http'), importName(names, 'ClientOptions', true)].join(', '),
    exports: {
      auth: importName(names, 'Credentials'),
      http: [
        importName(names, 'ApiError'),
        ...(['ClientOptions', 'Fetch', 'FieldError', 'StatusBody'] as const).map((n) => importName(names, n, true)),
      ].join(', '),
      query: (['ListQuery', 'SearchQuery', 'Selection', 'Sort'] as const).map((n) => importName(names, n)).join(', '),
      resources: [
        'cursorOf',
        'etagOf',
        'locationOf',
        ...(['Key', 'Page', 'ReadOptions', 'WriteOptions', 'FieldChoice', 'Shown'] as const).map((n) =>
          importName(names, n, true),
        ),
      ].join(', '),
    },
    http: names('Http'),
    clientOptions: names('ClientOptions'),
    operatorSets: sets.declared(),
    types: declarations.join('\n\n'),
    top: tree.top,
    factories: tree.factories,
    auth:
      ir.auth && user
        ? { user: user.item, create: user.create, ticket: ir.auth.ticket !== null, apiKey: ir.auth.apiKey !== null }
        : null,
  };
}

/** The helpers of `wanted` that `code` uses (by the name index.ts gives them), for an import list. */
function used(code: readonly string[], names: HelperNames, wanted: readonly ClientHelper[], typeOnly = false): string {
  const text = code.join('\n');
  return wanted
    .filter((name) => new RegExp(`(?<![\\w$])${names(name)}(?![\\w$])`).test(text))
    .map((name) => importName(names, name, typeOnly))
    .join(', ');
}

/** client/package.json: its own small package, no dependencies but the platform's fetch. */
export function clientPackageJson(ir: ServiceIR): string {
  const pkg = {
    name: `${ir.name}-client`,
    version: '1.0.0',
    description: `A typed client of ${ir.title}.`,
    private: true,
    type: 'module',
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
    files: ['dist'],
    scripts: { build: 'tsc -p tsconfig.json' },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** client/tsconfig.json: strict, ESM with declarations, for browsers and Node alike (fetch only). */
export function clientTsconfig(): string {
  const config = {
    compilerOptions: {
      target: 'es2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      lib: ['es2023', 'dom', 'dom.iterable'],
      types: [],
      strict: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
      skipLibCheck: true,
      declaration: true,
      rootDir: 'src',
      outDir: 'dist',
    },
    include: ['src'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
