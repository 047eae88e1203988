/**
 * Cases of the differential suite where svcgen deliberately answers otherwise than
 * raml-1-parser 1.1.67 (case name → why). A verdict or an expansion that differs quotes the
 * RAML 0.8 specification (raml-org/raml-spec, versions/raml-08/raml-08.md) where it is clear and
 * r1 does not follow it; three entries are the same verdict with r1 pointing at another line
 * ("same verdict"). A case that comes to agree fails the suite until its entry is removed.
 */
const YAML_12 =
  'r1 rejects it; RAML 0.8 §Markup Language: "This specification uses YAML 1.2 [YAML] as its core format", and the YAML 1.2 core schema reads true|True|TRUE and false|False|FALSE as booleans';
const MULTI_KEY =
  'r1 rejects a list item that declares two names; RAML 0.8 §Declaration: "The value of each of these properties is an array of maps; in each map, the keys are resourceType or trait names"';

export const DIFFERENT_BY_DESIGN: Readonly<Record<string, string>> = {
  'enum/scalar': 'r1 reads a single value as a list; RAML 0.8 §enum: "This MUST be an array"',
  'required-value/documentation-empty-list':
    'r1 accepts `documentation: []`; RAML 0.8 §User Documentation: "If the documentation property is specified, it MUST include at least one document"',
  'required-value/trait-parameter-null':
    'r1 rejects `p:` with no value only where the parameter names a key; RAML 0.8 §Parameters: parameters "whose values MUST be specified when applying the resource type or trait", and a YAML null is no value',
  'required-value/resource-type-parameter-null':
    'as required-value/trait-parameter-null: RAML 0.8 §Parameters, values "MUST be specified when applying the resource type or trait"',
  'wrong-kind/is-null-item':
    'r1 skips an empty item of "is"; RAML 0.8 §Applying Resource Types and Traits: "The value of the is attribute MUST be an array of any number of elements, each of which MUST be a) one or more trait keys (names) included in the traits declaration, or b) one or more trait definition maps"',
  'wrong-kind/type-list':
    'r1 accepts a list; RAML 0.8 §Resource Types and Traits: "The resource type may be defined inline as the value of the type property (directly or via an !include), or the value of the type property may be the name of a resource type"',
  'wrong-kind/security-schemes-scalar':
    'same verdict; r1 reports it at the API root (line 2), svcgen at `securitySchemes:` itself',
  'wrong-kind/protocols-lower-case':
    'r1 accepts `http`; RAML 0.8 §Protocols: "The protocols property MUST be an array of strings, of values "HTTP" and/or "HTTPS"" (RAML names are case-sensitive, §Markup Language)',
  'wrong-kind/base-uri-ftp':
    'r1 accepts an ftp: baseUri (and prints protocols [FTP]); RAML 0.8 §Protocols allows "HTTP" and/or "HTTPS" only and takes them from the baseUri when absent, and raml-parser 0.8 rejects it too',
  'optional/is-in-applied-resource-type':
    'r1 applies the traits of `is?` to a resource that has no `is`; RAML 0.8 §Optional Properties: the "?" marks a property "that should not be applied if it doesn\'t already exist in the resource or method at the corresponding level"',
  'functions/raml-1-function':
    'r1 knows the RAML 1.0 functions; RAML 0.8 §Parameters: "Parameter values MAY further be transformed by applying one of the following functions": !singularize and !pluralize only',
  'functions/raml-1-function-lowercamelcase':
    'as functions/raml-1-function: RAML 0.8 has !singularize and !pluralize only',
  'functions/unknown-in-key':
    'same verdict; r1 reports a mistake in a parameterized key with no value on the line after it (where the YAML null value ends), svcgen at the key',
  'functions/blank-name-in-key':
    'same verdict; r1 reports a mistake in a parameterized key with no value on the line after it (where the YAML null value ends), svcgen at the key',
  'expansion/inline-trait':
    'r1 reads a one-key inline trait as the name of an undeclared trait; RAML 0.8 §Resource Types and Traits: "Each trait element in that array may be defined inline (directly or via an !include), or it may be the name of a trait"',
  'without-methods/type-with-optional-method':
    'r1 asks no value for a parameter used only inside an optional method the resource does not have; RAML 0.8 §Parameters: resource types and traits "MAY contain parameters, whose values MUST be specified when applying the resource type or trait"',
  'lax/root-uri-parameters':
    'r1 echoes a root `uriParameters` unread; svcgen reads it as the baseUriParameters (with warning SVC1117), as RAML 0.8 §Base URI parameters says: "The uriParameters property MUST be a map in which each key MUST be the name of the URI parameter as defined in the baseUri property"',
  'lax/yaml-true-capitalised': YAML_12,
  'lax/yaml-true-upper-case': YAML_12,
  'lax/yaml-false-upper-case': YAML_12,
  'lax/multi-key-traits-item': MULTI_KEY,
  'lax/multi-key-resource-types-item': MULTI_KEY,
  'values/pattern-invalid-regexp':
    'r1 accepts any text; RAML 0.8 §pattern: "Regular expressions MUST follow the regular expression specification from ECMA 262/Perl 5", and "[a-" is not one',
};
