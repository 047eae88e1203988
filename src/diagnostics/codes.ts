/**
 * The catalogue of diagnostic codes. Codes are stable: once released, a code keeps its meaning
 * and is never reused. Every code is documented here, so an undocumented code does not compile.
 *
 * Ranges: SVC0xxx command line and environment, SVC1xxx reading the RAML (files, YAML, includes,
 * RAML structure, resource types and traits, security), SVC2xxx the service model (IR) and its
 * semantic checks, SVC3xxx output planning and writing.
 */

export type Severity = 'error' | 'warning';

export interface CodeInfo {
  readonly severity: Severity;
  /** A short title used in documentation. */
  readonly title: string;
  /** Why it is reported and how to fix it. */
  readonly explanation: string;
}

export const codes = {
  // --- files, YAML and includes ------------------------------------------------------------
  SVC1001: { severity: 'error', title: 'file cannot be read', explanation: 'The API file (or a file it includes) does not exist or cannot be read.' },
  SVC1002: { severity: 'error', title: 'file too large', explanation: 'A single input file may be at most 5 MiB, and all files together at most 20 MiB. Split the API or remove generated blobs.' },
  SVC1003: { severity: 'error', title: 'not a text file', explanation: 'The file contains NUL bytes or is not valid UTF-8 text. RAML and JSON inputs must be UTF-8 text.' },
  SVC1004: { severity: 'error', title: 'YAML syntax error', explanation: 'The file is not well-formed YAML 1.2.' },
  SVC1005: { severity: 'error', title: 'duplicate key', explanation: 'A key appears twice in the same mapping; the second would silently replace the first.' },
  SVC1006: { severity: 'error', title: 'unsupported YAML construct', explanation: 'RAML allows only scalar mapping keys and one YAML document per file; merge keys (`<<`) are not YAML 1.2.' },
  SVC1007: { severity: 'error', title: 'unknown YAML tag', explanation: 'Only `!include` and the standard YAML tags (`!!str`, `!!null`, ...) are understood.' },
  SVC1008: { severity: 'error', title: 'document too large after expansion', explanation: 'Aliases or repeated includes expand to more nodes than svcgen accepts (1,000,000). This protects against "billion laughs" and include fan-out bombs.' },
  SVC1009: { severity: 'error', title: 'nesting too deep', explanation: 'The document nests mappings or sequences deeper than 256 levels.' },
  SVC1010: { severity: 'error', title: 'included file not found', explanation: 'The file named by `!include` does not exist. Include paths are relative to the file that contains the `!include`.' },
  SVC1011: { severity: 'error', title: 'include outside the API folder', explanation: 'An `!include` resolves to a file outside the folder of the root RAML file. svcgen refuses it so that an API description cannot read arbitrary files.' },
  SVC1012: { severity: 'error', title: 'include cycle', explanation: 'A file includes itself, directly or through other files.' },
  SVC1013: { severity: 'error', title: 'remote include', explanation: 'Includes over HTTP(S) or other URLs are not fetched; download the file next to the API instead.' },
  SVC1014: { severity: 'error', title: 'invalid include', explanation: '`!include` must be followed by a file path (a plain scalar); the path cannot contain `<<parameters>>`.' },
  SVC1015: { severity: 'error', title: 'include target is not a file', explanation: 'The `!include` path names a directory or a special file.' },
  SVC1016: { severity: 'error', title: 'missing !include tag', explanation: 'The value looks like a path to a file but has no `!include` tag, so it would be used as literal text.' },

  // --- RAML structure -------------------------------------------------------------------------
  SVC1101: { severity: 'error', title: 'not a RAML 0.8 document', explanation: 'The first line of the root file must be exactly `#%RAML 0.8`.' },
  SVC1102: { severity: 'error', title: 'unknown property', explanation: 'The key is not a RAML 0.8 property at this place.' },
  SVC1103: { severity: 'error', title: 'wrong kind of value', explanation: 'The value has the wrong shape here (for example a list where a mapping is expected).' },
  SVC1104: { severity: 'error', title: 'missing required property', explanation: 'A property that RAML 0.8 requires is missing.' },
  SVC1105: { severity: 'error', title: 'invalid value', explanation: 'The value is not one of the values RAML 0.8 allows here.' },
  SVC1106: { severity: 'error', title: 'missing version', explanation: '`baseUri` uses `{version}` but the API has no `version`.' },
  SVC1107: { severity: 'error', title: 'reserved parameter', explanation: '`version` is a reserved base URI parameter; its value is the root `version` and it cannot be declared.' },
  SVC1108: { severity: 'error', title: 'invalid URI template', explanation: 'The URI or URI template is malformed (unbalanced braces, empty parameter name, unsupported scheme).' },
  SVC1109: { severity: 'error', title: 'invalid media type', explanation: 'A media type must look like `type/subtype`.' },
  SVC1110: { severity: 'error', title: 'invalid response code', explanation: 'Response codes are three-digit HTTP status codes.' },
  SVC1111: { severity: 'error', title: 'duplicate resource', explanation: 'Two resources resolve to the same URI.' },
  SVC1112: { severity: 'error', title: 'optional scalar property', explanation: 'Only mappings (methods, `headers`, `body`, response codes, ...) can be made optional with `?`; a scalar property cannot.' },
  SVC1113: { severity: 'error', title: 'invalid schema declaration', explanation: 'A named schema must be a string (inline text or an `!include`) and names must be unique.' },
  SVC1114: { severity: 'warning', title: 'example does not match its type', explanation: 'An `example` or `default` of a named parameter does not fit the parameter type.' },
  SVC1115: { severity: 'warning', title: 'invalid JSON schema', explanation: 'A body schema looks like JSON but does not parse.' },
  SVC1116: { severity: 'error', title: 'empty protocols', explanation: '`protocols` must be a non-empty list of `HTTP` and/or `HTTPS`.' },
  SVC1117: { severity: 'warning', title: 'deprecated or unusual form', explanation: 'The construct is accepted for compatibility but is not portable RAML 0.8.' },
  SVC1118: { severity: 'warning', title: 'unknown schema name', explanation: 'A body `schema` is a single word that is not a declared schema name, so it would be used as literal schema text. It is probably a typo.' },

  // --- resource types and traits ----------------------------------------------------------------
  SVC1201: { severity: 'error', title: 'unknown resource type', explanation: 'The resource type is not declared in `resourceTypes`.' },
  SVC1202: { severity: 'error', title: 'unknown trait', explanation: 'The trait is not declared in `traits`.' },
  SVC1203: { severity: 'error', title: 'resource type cycle', explanation: 'Resource types inherit from each other in a cycle.' },
  SVC1204: { severity: 'error', title: 'missing parameter value', explanation: 'A resource type or trait uses `<<name>>` but the place that applies it gives no value for `name`.' },
  SVC1205: { severity: 'warning', title: 'unused parameter', explanation: 'A value is given for a parameter that the resource type or trait never uses.' },
  SVC1206: { severity: 'error', title: 'reserved parameter given', explanation: '`resourcePath`, `resourcePathName` and `methodName` are computed by RAML and cannot be passed.' },
  SVC1207: { severity: 'error', title: 'unknown parameter function', explanation: 'Only `!singularize` and `!pluralize` can transform a parameter value.' },
  SVC1208: { severity: 'error', title: 'nested resource in a resource type', explanation: 'A resource type describes one resource; it cannot declare nested resources.' },
  SVC1210: { severity: 'error', title: 'duplicate declaration', explanation: 'Two resource types, traits, schemas or security schemes have the same name.' },

  // --- security -----------------------------------------------------------------------------------
  SVC1301: { severity: 'error', title: 'unknown security scheme', explanation: '`securedBy` names a scheme that is not declared in `securitySchemes`.' },
  SVC1302: { severity: 'error', title: 'unknown security scheme type', explanation: 'A scheme type is one of `OAuth 1.0`, `OAuth 2.0`, `Basic Authentication`, `Digest Authentication` or `x-<name>`.' },
  SVC1303: { severity: 'error', title: 'missing security setting', explanation: 'The scheme type requires this setting.' },
  SVC1304: { severity: 'error', title: 'invalid securedBy', explanation: '`securedBy` is a list of scheme names, `null`, or `{name: {parameters}}`.' },
} as const satisfies Record<string, CodeInfo>;

export type DiagnosticCode = keyof typeof codes;
