/**
 * The RAML resources as a tree of path segments: `/users/{id}` written as one resource key and
 * written as `/users:` + `/{id}:` give the same tree. Each node is a static name or one `{param}`.
 */
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import type { Span } from '../../diagnostics/source.js';
import type { RamlApi, Resource } from '../../raml/model.js';

/**
 * Characters that are syntax to the router or to URLs: ":" starts a parameter and "*" a wildcard
 * in Fastify's routes (a "*" mid-path stops the service at start-up); "?" and "#" end a path;
 * spaces and control characters are not URL characters; a percent-encoded character (`a%2Fb`) is
 * matched as its decoded form, so the route written with it was reached only at `a%252Fb` (a probe's).
 */
export const ROUTER_SYNTAX = /[:*?#%\s\p{Cc}]/u;
export const ROUTER_SYNTAX_MEANS =
  'the router reads ":" and "*" as a parameter and a wildcard, "?", "#" and spaces end or break a URL path, and a route with "%" is reached only by a URL that encodes the "%" again';

export interface PathNode {
  /** `users`, or `{username}`. */
  readonly segment: string;
  /** `username` for a `{username}` segment, else null. */
  readonly param: string | null;
  /** The path from the API root as written: `/users/{username}`. */
  readonly ramlPath: string;
  /** The RAML resource that ends at this node, if any (`/users/{id}` has an implicit `users` node). */
  resource: Resource | undefined;
  readonly span: Span;
  readonly children: PathNode[];
}

export function pathTree(api: RamlApi, diagnostics: DiagnosticBag): PathNode {
  const root: PathNode = {
    segment: '',
    param: null,
    ramlPath: '',
    resource: undefined,
    span: api.node.span,
    children: [],
  };
  const visit = (resources: readonly Resource[], parent: PathNode) => {
    for (const resource of resources) {
      const node = place(resource, parent, diagnostics);
      if (node) visit(resource.resources, node);
    }
  };
  visit(api.resources, root);
  return root;
}

function place(resource: Resource, parent: PathNode, diagnostics: DiagnosticBag): PathNode | undefined {
  const segments = resource.relativeUri.split('/').filter((s) => s !== '');
  if (segments.length === 0) {
    diagnostics.report('SVC2016', `a resource at "${resource.path}" has no name to serve`, {
      span: resource.keyNode.span,
      hint: 'give it a path such as /items',
    });
    return undefined;
  }
  let node = parent;
  for (const segment of segments) {
    const param = /^\{([^{}]+)\}$/.exec(segment)?.[1] ?? null;
    if (param === null && segment.includes('{')) {
      diagnostics.report(
        'SVC2016',
        `svcgen serves path segments that are a name or one {parameter}, not "${segment}"`,
        {
          span: resource.keyNode.span,
          hint: segment.includes('mediaTypeExtension')
            ? 'the service always speaks JSON; drop {mediaTypeExtension}'
            : 'split it into separate segments',
        },
      );
      return undefined;
    }
    if (param === null && ROUTER_SYNTAX.test(segment)) {
      diagnostics.report(
        'SVC2016',
        `svcgen serves path segments that are a name or one {parameter}, not "${segment}": ${ROUTER_SYNTAX_MEANS}`,
        {
          span: resource.keyNode.span,
          hint: 'use letters, digits, "-", "_" or "." in a name',
        },
      );
      return undefined;
    }
    let child = node.children.find((c) => c.segment === segment);
    if (!child) {
      child = {
        segment,
        param,
        ramlPath: `${node.ramlPath}/${segment}`,
        resource: undefined,
        span: resource.keyNode.span,
        children: [],
      };
      node.children.push(child);
    }
    node = child;
  }
  node.resource ??= resource;
  return node;
}

/** Every node below `root`, depth first, parents before children. */
export function* walk(root: PathNode): Generator<{ node: PathNode; parent: PathNode }> {
  for (const child of root.children) {
    yield { node: child, parent: root };
    yield* walk(child);
  }
}
