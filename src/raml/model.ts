/**
 * The RAML 0.8 document after includes, resource types, traits and the default media type have
 * been applied: what the service description says, typed and located. Values are as written;
 * defaults that RAML implies (a parameter's `type: string`, URI parameters being required, …)
 * are applied by the functions in `defaults.ts`, so readers can tell "absent" from "default".
 *
 * Every object keeps the YAML node it was read from (`node`) so later stages can point
 * diagnostics at it.
 */
import type { ScalarValue, YMap, YNode, YScalar } from '../load/ynode.js';

/** Keys the reader did not recognise but kept, in templates only (`<<param>>: value`). */
export type Extras = ReadonlyMap<string, unknown>;

export interface RamlApi {
  readonly title?: string;
  readonly version?: string;
  readonly baseUri?: string;
  /** As declared at the root (`baseUriParameters`, or the `uriParameters` alias). */
  readonly baseUriParameters?: NamedParameters;
  readonly protocols?: readonly string[];
  readonly mediaType?: string;
  readonly schemas: readonly SchemaDeclaration[];
  readonly documentation?: readonly DocumentationItem[];
  readonly traits: readonly TraitDeclaration[];
  readonly resourceTypes: readonly ResourceTypeDeclaration[];
  readonly securitySchemes: readonly SecurityScheme[];
  readonly securedBy?: readonly SecurityReference[];
  readonly resources: readonly Resource[];
  readonly node: YMap;
}

export interface DocumentationItem {
  readonly title?: string;
  readonly content?: string;
  readonly node: YNode;
}

export interface SchemaDeclaration {
  readonly name: string;
  /** The schema text (inline or included). */
  readonly content: string;
  readonly node: YScalar;
}

/** RAML 0.8 §Named Parameters. */
export interface NamedParameter {
  readonly name: string;
  readonly displayName?: string;
  readonly description?: string;
  readonly type?: string;
  readonly enum?: readonly ScalarValue[];
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly example?: unknown;
  readonly repeat?: boolean;
  readonly required?: boolean;
  readonly default?: unknown;
  readonly extras?: Extras;
  readonly node: YNode;
}

/** A parameter is one definition or, for "named parameters with multiple types", several. */
export type ParameterDefinition = NamedParameter | readonly NamedParameter[];

/** Parameters by name, in the order written. */
export type NamedParameters = ReadonlyMap<string, ParameterDefinition>;

export interface SchemaReference {
  /** As written: a declared schema's name, or the schema text itself. */
  readonly written: string;
  /** The declared schema this refers to, when `written` is a name. */
  readonly declaration?: SchemaDeclaration;
  /** The schema text: the declaration's content, or `written`. */
  readonly content: string;
  /** The node holding the text: for an included file, its `includedFile` says where it came from. */
  readonly contentNode: YScalar;
  readonly node: YScalar;
}

export interface Body {
  readonly mediaType: string;
  readonly schema?: SchemaReference;
  /** The example as YAML reads it (usually text; a plain `15` is a number). */
  readonly example?: string | number | boolean;
  readonly formParameters?: NamedParameters;
  /** Accepted as the reference parsers accept it; RAML 0.8 does not list it for bodies. */
  readonly description?: string;
  readonly extras?: Extras;
  readonly node: YNode;
}

export interface Response {
  readonly code: string;
  readonly description?: string;
  readonly headers?: NamedParameters;
  readonly body?: readonly Body[];
  readonly extras?: Extras;
  readonly node: YNode;
}

/** `securedBy` entry: `null` (no security), a scheme name, or a name with parameters. */
export type SecurityReference = null | { readonly name: string; readonly parameters?: unknown; readonly node: YNode };

export interface Method {
  readonly method: string;
  readonly description?: string;
  readonly headers?: NamedParameters;
  readonly queryParameters?: NamedParameters;
  readonly body?: readonly Body[];
  readonly responses?: readonly Response[];
  readonly protocols?: readonly string[];
  readonly securedBy?: readonly SecurityReference[];
  /** Traits as written (plain values), including those merged in from the resource type. */
  readonly is?: unknown;
  readonly baseUriParameters?: NamedParameters;
  /** Only in declarations: `usage` and `displayName` of a trait. */
  readonly usage?: string;
  readonly displayName?: string;
  readonly extras?: Extras;
  readonly node: YNode;
}

export interface Resource {
  readonly relativeUri: string;
  readonly displayName?: string;
  readonly description?: string;
  /** The resource type as written (plain value). */
  readonly type?: unknown;
  readonly is?: unknown;
  readonly securedBy?: readonly SecurityReference[];
  /** As declared for this resource's own relative URI. */
  readonly uriParameters?: NamedParameters;
  readonly baseUriParameters?: NamedParameters;
  readonly methods: readonly Method[];
  readonly resources: readonly Resource[];
  /** Only in declarations: `usage` of a resource type. */
  readonly usage?: string;
  readonly extras?: Extras;
  /** The relative URIs of this resource and its ancestors, concatenated (no base URI). */
  readonly path: string;
  readonly keyNode: YScalar;
  readonly node: YNode;
}

export interface TraitDeclaration {
  readonly name: string;
  readonly trait: Method;
  readonly nameNode: YScalar;
}

export interface ResourceTypeDeclaration {
  readonly name: string;
  readonly resourceType: Resource;
  readonly nameNode: YScalar;
}

export interface SecurityScheme {
  readonly name: string;
  readonly type?: string;
  readonly description?: string;
  readonly describedBy?: Method;
  /** Scheme-specific settings as written (x-Ticket, x-ACL, … read them in the IR stage). */
  readonly settings?: YMap;
  readonly nameNode: YScalar;
  readonly node: YNode;
}
