/**
 * A typed client of a service, as its users make one: openapi-typescript's types of the
 * document, called through openapi-fetch. `clientCalls` writes, from the document alone, calls
 * that a client author would write (a sorted and filtered list, a PATCH with If-Match, a
 * free-form body, logging in), and calls the types must refuse (`@ts-expect-error`: if the
 * types let them through, the check fails on the unused directive).
 */
type Json = Record<string, unknown>;

export type Feature = 'list' | 'If-Match' | 'free-form body' | 'auth';

export interface ClientCalls {
  readonly code: string;
  readonly features: readonly Feature[];
}

/** The calls of `client.ts` beside `schema.d.ts` (openapi-typescript's output for the document). */
export function clientCalls(document: Json): ClientCalls {
  const doc = new DocumentView(document);
  const parts = [listCall(doc), ifMatchCall(doc), freeFormCall(doc), authCalls(doc)].filter(
    (p): p is { feature: Feature; code: string } => p !== null,
  );
  const code = [
    "import createClient from 'openapi-fetch';",
    "import type { paths } from './schema.js';",
    '',
    "const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:3000' });",
    '',
    ...parts.map((p) => `// ${p.feature}\n${p.code}\n`),
  ].join('\n');
  return { code, features: parts.map((p) => p.feature) };
}

const json = (value: unknown) => JSON.stringify(value);

/** `GET` of a top-level collection, sorted, filtered on a field and paged; reads the keys of the page. */
function listCall(doc: DocumentView): { feature: Feature; code: string } | null {
  for (const path of doc.paths()) {
    const op = doc.operation(path, 'get');
    if (!op || path.includes('{')) continue;
    const query = doc.parameters(op).filter((p) => p['in'] === 'query');
    const filter = query.find((p) => !String(p['name']).startsWith('_') && listValue(p) !== undefined);
    if (!filter || !query.some((p) => p['name'] === '_sort')) continue;
    const params = { _sort: ['-_pk'], _limit: 5, [String(filter['name'])]: listValue(filter) };
    return {
      feature: 'list',
      code: [
        `const page = await client.GET(${json(path)}, { params: { query: ${json(params)} } });`,
        'if (page.data && "data" in page.data) {',
        '  const keys: string[] = page.data.data.map((object) => object._pk);',
        '  console.log(keys);',
        '}',
        '// @ts-expect-error: _limit is a number',
        `await client.GET(${json(path)}, { params: { query: { _limit: 'five' } } });`,
      ].join('\n'),
    };
  }
  return null;
}

/** A value a list filter takes: of its items' type. */
function listValue(parameter: Json): unknown[] | undefined {
  const schema = parameter['schema'] as Json | undefined;
  const items = schema?.['type'] === 'array' ? (schema['items'] as Json) : undefined;
  if (!items) return undefined;
  if (Array.isArray(items['enum'])) return [items['enum'][0]];
  if (items['format'] || items['pattern']) return undefined;
  return { string: ['a', 'b'], integer: [1, 2], number: [1.5], boolean: [true] }[String(items['type'])];
}

/** `PATCH` of an item with If-Match and the update example; a body field the model has not is refused. */
function ifMatchCall(doc: DocumentView): { feature: Feature; code: string } | null {
  for (const path of doc.paths()) {
    const op = doc.operation(path, 'patch');
    // An item's (a path with its key): a collection's takes If-Match too, but only `*` holds there.
    if (!op || !path.includes('{') || !doc.parameters(op).some((p) => p['name'] === 'If-Match')) continue;
    const path_ = doc.pathExamples(path);
    const body = doc.bodyExample(op) as Json;
    // openapi-fetch lets unknown body fields through (TypeScript checks no excess properties of an
    // inferred type): a wrong type for a known one is what the types must refuse.
    const [field, value] = Object.entries(body)[0] ?? [];
    if (field === undefined) continue;
    const params = `{ path: ${json(path_)}, header: { 'If-Match': '"3f1Tz5mQ0bWxJ9kLr2VhYcN8aPe"' } }`;
    return {
      feature: 'If-Match',
      code: [
        `const changed = await client.PATCH(${json(path)}, { params: ${params}, body: ${json(body)} });`,
        'if (changed.response.status === 412) console.log(changed.error?.message);',
        `// @ts-expect-error: ${field} takes a ${typeof value}, not a ${typeof wrong(value)}`,
        `await client.PATCH(${json(path)}, { params: { path: ${json(path_)} }, body: { ${json(field)}: ${json(wrong(value))} } });`,
        '// @ts-expect-error: If-Match is a string',
        `await client.PATCH(${json(path)}, { params: { path: ${json(path_)}, header: { 'If-Match': 1 } }, body: {} });`,
      ].join('\n'),
    };
  }
  return null;
}

/** A value of another JSON type than `value`'s. */
function wrong(value: unknown): unknown {
  return typeof value === 'string' ? 1 : 'text';
}

/** A `POST` whose body is a free-form object (a merge into a dict field), or a create with a dict field. */
function freeFormCall(doc: DocumentView): { feature: Feature; code: string } | null {
  for (const path of doc.paths()) {
    const op = doc.operation(path, 'post');
    const schema = op && doc.bodySchema(op);
    if (!schema || schema['additionalProperties'] !== true || schema['propertyNames']) continue;
    return {
      feature: 'free-form body',
      code: `await client.POST(${json(path)}, { params: { path: ${json(doc.pathExamples(path))} }, body: { theme: 'dark', size: 3 } });`,
    };
  }
  return null;
}

/** Logging in (a ticket) or getting an API token, then a call that needs it. */
function authCalls(doc: DocumentView): { feature: Feature; code: string } | null {
  const login = doc.operation('/auth/login', 'post') ?? doc.operation('/auth/token', 'post');
  if (!login) return null;
  const path = doc.operation('/auth/login', 'post') ? '/auth/login' : '/auth/token';
  const credentials = doc.bodyExample(login) as { login: string; password: string };
  const lines = [`const session = await client.POST(${json(path)}, { body: ${json(credentials)} });`];
  if (path === '/auth/login') lines.push('const who: string | undefined = session.data?._pk;', 'console.log(who);');
  else {
    lines.push(
      'const token: string | undefined = session.data?.token;',
      'const authorized = createClient<paths>({',
      "  baseUrl: 'http://127.0.0.1:3000',",
      `  headers: { Authorization: \`ApiKey ${credentials.login}:\${token ?? ''}\` },`,
      '});',
      'console.log(authorized);',
    );
  }
  lines.push(
    '// @ts-expect-error: the password is a string',
    `await client.POST(${json(path)}, { body: { login: 'a', password: 1 } });`,
  );
  if (doc.operation('/users/self', 'get'))
    lines.push("const self = await client.GET('/users/self');", 'console.log(self.data?._self);');
  return { feature: 'auth', code: lines.join('\n') };
}

/** A document, read with its `$ref`s followed. */
class DocumentView {
  constructor(readonly document: Json) {}

  paths(): string[] {
    return Object.keys(this.document['paths'] as Json);
  }

  operation(path: string, method: string): Json | undefined {
    return (
      ((this.document['paths'] as Record<string, Json | undefined>)[path]?.[method] as Json | undefined) ?? undefined
    );
  }

  /** The parameters of the operation, and those of its path. */
  parameters(operation: Json): Json[] {
    return ((operation['parameters'] as Json[] | undefined) ?? []).map((p) => this.resolve(p));
  }

  /** `{ id: 2 }`: each path parameter's example. */
  pathExamples(path: string): Json {
    const item = (this.document['paths'] as Record<string, Json>)[path]!;
    const parameters = ((item['parameters'] as Json[] | undefined) ?? []).map((p) => this.resolve(p));
    return Object.fromEntries(parameters.map((p) => [p['name'], p['example']]));
  }

  bodySchema(operation: Json): Json | undefined {
    const media = this.media(operation);
    return media ? this.resolve(media['schema'] as Json) : undefined;
  }

  bodyExample(operation: Json): unknown {
    return this.media(operation)?.['example'] ?? {};
  }

  private media(operation: Json): Json | undefined {
    const body = operation['requestBody'] as Json | undefined;
    return (body?.['content'] as Json | undefined)?.['application/json'] as Json | undefined;
  }

  resolve(value: Json): Json {
    const ref = value['$ref'];
    if (typeof ref !== 'string') return value;
    const [, , kind, name] = ref.split('/');
    return ((this.document['components'] as Record<string, Json>)[kind!]![name!] as Json) ?? value;
  }
}
