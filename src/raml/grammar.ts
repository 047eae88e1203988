/** Names RAML 0.8 gives meaning to, shared by the expander, the reader and the TCK printer. */

/** RAML 0.8 §Methods: the HTTP methods of RFC 2616 plus PATCH, lower case. */
export const METHOD_NAMES = ['get', 'post', 'put', 'delete', 'head', 'patch', 'options', 'trace', 'connect'] as const;
export type MethodName = (typeof METHOD_NAMES)[number];

const methodSet: ReadonlySet<string> = new Set(METHOD_NAMES);
export function isMethodName(key: string): key is MethodName {
  return methodSet.has(key);
}

/** Keys of a body declaration (as opposed to media types), used for the default media type pivot. */
export const BODY_PROPERTIES: ReadonlySet<string> = new Set(['schema', 'example', 'formParameters']);

export function isResourceKey(key: string): boolean {
  return key.startsWith('/');
}
