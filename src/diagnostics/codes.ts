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
  SVC1001: {
    severity: 'error',
    title: 'file cannot be read',
    explanation: 'The API file (or a file it includes) does not exist or cannot be read.',
  },
  SVC1002: {
    severity: 'error',
    title: 'file too large',
    explanation:
      'A single input file may be at most 5 MiB, and all files together at most 20 MiB. Split the API or remove generated blobs.',
  },
  SVC1003: {
    severity: 'error',
    title: 'not a text file',
    explanation: 'The file contains NUL bytes or is not valid UTF-8 text. RAML and JSON inputs must be UTF-8 text.',
  },
  SVC1004: { severity: 'error', title: 'YAML syntax error', explanation: 'The file is not well-formed YAML 1.2.' },
  SVC1005: {
    severity: 'error',
    title: 'duplicate key',
    explanation:
      'A key appears twice in the same mapping; the second would silently replace the first. In resource types and traits, `x?` and `x` are the same property too. Reported at the repeat, with a note where the first one is.',
  },
  SVC1006: {
    severity: 'error',
    title: 'unsupported YAML construct',
    explanation:
      'RAML allows only scalar mapping keys and one YAML document per file; merge keys (`<<`) are not YAML 1.2.',
  },
  SVC1007: {
    severity: 'error',
    title: 'unknown YAML tag',
    explanation: 'Only `!include` and the standard YAML tags (`!!str`, `!!null`, ...) are understood.',
  },
  SVC1008: {
    severity: 'error',
    title: 'document too large after expansion',
    explanation:
      'Aliases or repeated includes expand to more nodes than svcgen accepts (1,000,000). This protects against "billion laughs" and include fan-out bombs.',
  },
  SVC1009: {
    severity: 'error',
    title: 'nesting too deep',
    explanation: 'The document nests mappings or sequences deeper than 256 levels.',
  },
  SVC1010: {
    severity: 'error',
    title: 'included file not found',
    explanation:
      'The file named by `!include` does not exist. Include paths are relative to the file that contains the `!include`.',
  },
  SVC1011: {
    severity: 'error',
    title: 'include outside the API folder',
    explanation:
      'An `!include` resolves to a file outside the folder of the root RAML file. svcgen refuses it so that an API description cannot read arbitrary files.',
  },
  SVC1012: {
    severity: 'error',
    title: 'include cycle',
    explanation: 'A file includes itself, directly or through other files.',
  },
  SVC1013: {
    severity: 'error',
    title: 'remote include',
    explanation: 'Includes over HTTP(S) or other URLs are not fetched; download the file next to the API instead.',
  },
  SVC1014: {
    severity: 'error',
    title: 'invalid include',
    explanation:
      '`!include` must be followed by a file path (a plain scalar); the path cannot contain `<<parameters>>`.',
  },
  SVC1015: {
    severity: 'error',
    title: 'include target is not a file',
    explanation: 'The `!include` path names a directory or a special file.',
  },
  SVC1016: {
    severity: 'error',
    title: 'missing !include tag',
    explanation:
      'The value looks like a path to a file but has no `!include` tag, so it would be used as literal text.',
  },

  // --- RAML structure -------------------------------------------------------------------------
  SVC1101: {
    severity: 'error',
    title: 'not a RAML 0.8 document',
    explanation: 'The first line of the root file must be exactly `#%RAML 0.8`.',
  },
  SVC1102: {
    severity: 'error',
    title: 'unknown property',
    explanation:
      'The key is not a RAML 0.8 property at this place; when it is a property of another place (`usage` in a method, `title` in a resource), the message says where it belongs. Optional properties (`key?`) exist only in resource types and traits, and a trait cannot apply other traits with `is`.',
  },
  SVC1103: {
    severity: 'error',
    title: 'wrong kind of value',
    explanation: 'The value has the wrong shape here (for example a list where a mapping is expected).',
  },
  SVC1104: {
    severity: 'error',
    title: 'missing required property',
    explanation: 'A property that RAML 0.8 requires is missing.',
  },
  SVC1105: {
    severity: 'error',
    title: 'invalid value',
    explanation: 'The value is not one of the values RAML 0.8 allows here.',
  },
  SVC1106: {
    severity: 'error',
    title: 'missing version',
    explanation: '`baseUri` uses `{version}` but the API has no `version`.',
  },
  SVC1107: {
    severity: 'error',
    title: 'reserved parameter',
    explanation:
      '`version` is a reserved base URI parameter; its value is the root `version` and it cannot be declared.',
  },
  SVC1108: {
    severity: 'error',
    title: 'invalid URI template',
    explanation: 'The URI or URI template is malformed (unbalanced braces, empty parameter name, unsupported scheme).',
  },
  SVC1109: {
    severity: 'error',
    title: 'invalid media type',
    explanation: 'A media type must look like `type/subtype`.',
  },
  SVC1110: {
    severity: 'error',
    title: 'invalid response code',
    explanation: 'Response codes are three-digit HTTP status codes.',
  },
  SVC1111: {
    severity: 'error',
    title: 'duplicate resource',
    explanation: 'Two resources resolve to the same URI. Reported at the second, with a note where the first one is.',
  },
  SVC1112: {
    severity: 'error',
    title: 'optional scalar property',
    explanation:
      "Only mappings (methods, `headers`, `body`, response codes, ...) can be made optional with `?`; a scalar property (`description`, `usage`, `displayName`, `type`, `schema`, `example`, a named parameter's `required`, …) cannot. Checked where the resource type or trait is declared, whether it is applied or not.",
  },
  SVC1113: {
    severity: 'error',
    title: 'invalid schema declaration',
    explanation: 'A named schema must be a string (inline text or an `!include`) and names must be unique.',
  },
  SVC1114: {
    severity: 'warning',
    title: 'example does not match its type',
    explanation: 'An `example` or `default` of a named parameter does not fit the parameter type.',
  },
  SVC1115: {
    severity: 'warning',
    title: 'invalid JSON schema',
    explanation: 'A body schema looks like JSON but does not parse.',
  },
  SVC1116: {
    severity: 'error',
    title: 'empty protocols',
    explanation: '`protocols` must be a non-empty list of `HTTP` and/or `HTTPS`.',
  },
  SVC1117: {
    severity: 'warning',
    title: 'deprecated or unusual form',
    explanation: 'The construct is accepted for compatibility but is not portable RAML 0.8.',
  },
  SVC1118: {
    severity: 'warning',
    title: 'unknown schema name',
    explanation:
      'A body `schema` is a single word that is not a declared schema name, so it would be used as literal schema text. It is probably a typo.',
  },
  SVC1119: {
    severity: 'error',
    title: 'facet does not fit the parameter type',
    explanation:
      '`enum`, `pattern`, `minLength` and `maxLength` apply only to `string` parameters (the default type), `minimum` and `maximum` only to `number` and `integer` parameters; `date`, `boolean` and `file` parameters have none of them.',
  },
  SVC1120: {
    severity: 'error',
    title: 'file parameter outside a form',
    explanation:
      '`type: file` is only for form parameters (`formParameters` of a `multipart/form-data` or `application/x-www-form-urlencoded` body); a URI, query or header parameter cannot carry a file.',
  },
  SVC1121: {
    severity: 'error',
    title: 'missing value',
    explanation:
      'The property needs a value but has none: in YAML, `key:` with nothing after it is null. RAML 0.8 requires a value for `title`, `mediaType`, the `title` and `content` of documentation, the `type` of a security scheme, and every parameter passed to a resource type or trait.',
  },
  SVC1122: {
    severity: 'error',
    title: 'misplaced form parameters',
    explanation:
      '`formParameters` describe the fields of a request form: they cannot appear in a response body, nor beside `schema` or `example` in the same body.',
  },

  // --- resource types and traits ----------------------------------------------------------------
  SVC1201: {
    severity: 'error',
    title: 'unknown resource type',
    explanation:
      'The resource type is not declared in `resourceTypes`. Also checked where a resource type names its parent, applied or not.',
  },
  SVC1202: {
    severity: 'error',
    title: 'unknown trait',
    explanation:
      'The trait is not declared in `traits`. Also checked in the `is` of a resource type and of its methods, applied or not.',
  },
  SVC1203: {
    severity: 'error',
    title: 'resource type cycle',
    explanation:
      'Resource types inherit from each other in a cycle. Reported at the first type of the cycle where it is declared, whether any resource uses it or not.',
  },
  SVC1204: {
    severity: 'error',
    title: 'missing parameter value',
    explanation:
      'A resource type or trait uses `<<name>>` but the place that applies it gives no value for `name`. RAML 0.8 says the values "MUST be specified when applying the resource type or trait": every parameter it uses needs one, also one used only inside an optional property (`post?:`).',
  },
  SVC1205: {
    severity: 'warning',
    title: 'unused parameter',
    explanation: 'A value is given for a parameter that the resource type or trait never uses.',
  },
  SVC1206: {
    severity: 'error',
    title: 'reserved parameter given',
    explanation: '`resourcePath`, `resourcePathName` and `methodName` are computed by RAML and cannot be passed.',
  },
  SVC1207: {
    severity: 'error',
    title: 'unknown parameter function',
    explanation:
      'Only `!singularize` and `!pluralize` can transform a parameter value. Checked where the resource type or trait is declared, whether it is applied or not.',
  },
  SVC1208: {
    severity: 'error',
    title: 'nested resource in a resource type',
    explanation: 'A resource type describes one resource; it cannot declare nested resources.',
  },
  SVC1209: {
    severity: 'error',
    title: 'malformed parameter reference',
    explanation:
      'A `<<…>>` in a resource type or trait must name a parameter: `<<name>>`, or `<<name | !function>>`. A blank name (`<< >>`) or text that is not one name (`<<a b>>`) is reported where the template is declared, whether it is applied or not.',
  },
  SVC1210: {
    severity: 'error',
    title: 'duplicate declaration',
    explanation:
      'Two resource types, traits, schemas or security schemes have the same name. Reported at the second, with a note where the first one is.',
  },

  // --- security -----------------------------------------------------------------------------------
  SVC1301: {
    severity: 'error',
    title: 'unknown security scheme',
    explanation: '`securedBy` names a scheme that is not declared in `securitySchemes`.',
  },
  SVC1302: {
    severity: 'error',
    title: 'unknown security scheme type',
    explanation:
      'A scheme type is one of `OAuth 1.0`, `OAuth 2.0`, `Basic Authentication`, `Digest Authentication` or `x-<name>`.',
  },
  SVC1303: {
    severity: 'error',
    title: 'missing security setting',
    explanation: 'The scheme type requires this setting.',
  },
  SVC1304: {
    severity: 'error',
    title: 'invalid securedBy',
    explanation: '`securedBy` is a list of scheme names, `null`, or `{name: {parameters}}`.',
  },
  // --- the service model: schemas, models and fields ------------------------------------------------
  SVC2001: {
    severity: 'error',
    title: 'invalid JSON schema',
    explanation:
      'A model schema is not valid JSON (RFC 8259): no comments, no trailing commas, strings in double quotes.',
  },
  SVC2002: {
    severity: 'error',
    title: 'schema is not a model',
    explanation: 'A schema used by a `post` body must be a JSON object whose `properties` are the model fields.',
  },
  SVC2003: {
    severity: 'error',
    title: 'invalid _db_settings',
    explanation: '`_db_settings` of a property must be an object.',
  },
  SVC2004: {
    severity: 'error',
    title: 'unusable field name',
    explanation:
      "Field names start with a letter and contain letters, digits and `_`. Names starting with `_`, `q`, and names containing `__` are reserved for query parameters and filter operators; `rowid` (in any case) is SQLite's id of a row, which a column of that name would hide; `tableoid`, `xmin`, `cmin`, `xmax`, `cmax` and `ctid` are PostgreSQL's system columns, which no table may have a column of; names starting with `svc_search_` are the search index's columns on PostgreSQL, which also cuts names longer than 63 characters.",
  },
  SVC2005: {
    severity: 'error',
    title: 'unknown field type',
    explanation:
      'The `_db_settings.type` (or `item_type`) is not a type svcgen knows. Types: string, text, unicode, unicode_text, integer, big_integer, small_integer, float, decimal, boolean, datetime, date, time, interval, choice, list, dict, id_field, file, pickle, foreign_key, relationship.',
  },
  SVC2006: {
    severity: 'error',
    title: 'invalid schema list',
    explanation:
      'Keys such as `_processors`, `_public_fields` or `_event_handlers` have a fixed shape (a list of names, or an object of lists).',
  },
  SVC2007: {
    severity: 'error',
    title: 'invalid function name',
    explanation:
      'Handlers, processors, dynamic principals and callable defaults become TypeScript functions in modules named after them, so their names must be identifiers.',
  },
  SVC2008: {
    severity: 'error',
    title: 'inconsistent field parameters',
    explanation:
      'The field parameters contradict each other or the type (a `choice` without `choices`, a `list` without `item_type`, an `id_field` that is not the primary key, min greater than max, …).',
  },
  SVC2009: {
    severity: 'warning',
    title: 'pickle stored as JSON',
    explanation: 'There is no Python in the generated service, so a `pickle` field holds JSON.',
  },
  SVC2010: {
    severity: 'error',
    title: 'invalid field parameter',
    explanation:
      'A field parameter has the wrong kind of value (a number where true/false is expected, an unknown referential action, …).',
  },
  SVC2011: {
    severity: 'error',
    title: 'missing field parameter',
    explanation:
      'Relationships need `document` (and `backref_name`); foreign keys need `ref_document`, `ref_column` and `ref_column_type`.',
  },
  SVC2012: {
    severity: 'warning',
    title: 'ignored field parameter',
    explanation: 'The parameter means nothing for this field type, so it has no effect.',
  },
  SVC2013: {
    severity: 'warning',
    title: 'unknown schema key',
    explanation: 'A root key of the schema starts with `_` but is not one svcgen reads; it is probably misspelt.',
  },
  SVC2014: {
    severity: 'error',
    title: 'no primary key',
    explanation: 'Every model needs exactly one field with `"primary_key": true`.',
  },
  SVC2015: {
    severity: 'error',
    title: 'several primary keys',
    explanation: 'Every model needs exactly one primary key; composite keys are not supported.',
  },
  SVC2016: {
    severity: 'error',
    title: 'path segment not served',
    explanation:
      'svcgen serves path segments that are a name (`stories`) or one parameter (`{id}`), not a mix such as `{name}.{ext}`, and no `:`, `*`, `?`, `#` or spaces, which the router and URLs read as syntax, nor `%`: a route written with a percent-encoded character (`/a%2Fb`) is reached only by a URL that encodes it twice.',
  },
  SVC2017: {
    severity: 'warning',
    title: 'model defined twice',
    explanation: 'Two resources give different schemas for the same model; the first one is used.',
  },
  SVC2018: {
    severity: 'error',
    title: 'no schema for a model',
    explanation:
      'A collection resource needs a model, defined by a `post` body schema on this or another resource with the same name.',
  },
  SVC2019: {
    severity: 'error',
    title: 'resource starts with a parameter',
    explanation: 'A `{parameter}` at the top of the API has no collection to look items up in.',
  },
  SVC2020: {
    severity: 'error',
    title: 'unknown nested resource',
    explanation:
      'Below an item, a resource must be named after a relationship (a nested collection or a singular sub-resource) or a `dict`/`list` field (an attribute) of the parent model.',
  },
  SVC2021: {
    severity: 'error',
    title: 'several item parameters',
    explanation: 'Items are looked up by primary key, so a collection has one `{parameter}` child.',
  },
  SVC2022: {
    severity: 'error',
    title: 'misplaced nesting',
    explanation:
      'Singular and attribute sub-resources have no items, nor has an item items of its own (`/farms/{id}/{other}`: name the relationship they come from, `/farms/{id}/fields/{other}`), and attribute sub-resources have no nested resources.',
  },
  SVC2023: {
    severity: 'warning',
    title: 'method not served',
    explanation:
      'The RAML lists a method that this kind of route has no action for (for example `post` on an item); it is not served.',
  },
  SVC2024: {
    severity: 'warning',
    title: 'security scheme not used',
    explanation:
      'svcgen implements x-Ticket, x-ApiKey and x-ACL; other schemes, and authentication schemes missing from the root `securedBy`, have no effect.',
  },
  SVC2025: {
    severity: 'error',
    title: 'invalid x-Ticket settings',
    explanation:
      'x-Ticket needs `secret` (the name of the service.ini key holding the signing secret); `hashalg` is sha256, sha384 or sha512; `cookie_name` must be a valid cookie name.',
  },
  SVC2026: {
    severity: 'warning',
    title: 'ignored scheme setting',
    explanation: 'The security scheme setting is not used (some ticket options are read from service.ini instead).',
  },
  SVC2027: {
    severity: 'error',
    title: 'parameter in the base path',
    explanation:
      'Only `{version}` (and host parameters) may appear in `baseUri`; the service is mounted on a fixed base path, which holds no `:`, `*`, `?`, `#`, `%` or spaces (the router would read them as a parameter or a wildcard, and a route with a percent-encoded character is reached only by a URL that encodes it twice), and no `.` or `..` segment (clients resolve those away before they send a URL).',
  },
  SVC2028: {
    severity: 'error',
    title: 'unsafe pattern',
    explanation:
      'A JSON-schema `pattern` is not a regular expression, or has a shape that can take exponential time to match (a repeated part that repeats itself, such as `(a+)+`, or a repeated choice whose alternatives start alike, such as `(a|ab)*`): one request could keep the generated server busy. Rewrite it so that each repeated part is unambiguous.',
  },
  SVC2029: {
    severity: 'warning',
    title: 'reference not followed',
    explanation:
      "A property's `$ref` points outside its schema file, at a missing place, or at another `$ref`; svcgen follows only `#/definitions/<name>` (any JSON pointer) in the same file. The constraints of the schema it names are not checked by the generated service.",
  },

  // --- access control -------------------------------------------------------------------------------
  SVC2030: {
    severity: 'error',
    title: 'invalid ACL rule',
    explanation: 'An x-ACL rule reads `allow|deny <principal> <permission>[, <permission>…]`.',
  },
  SVC2031: {
    severity: 'error',
    title: 'unknown ACL permission',
    explanation: 'Permissions are view, create, update, delete, options and all.',
  },
  SVC2032: {
    severity: 'warning',
    title: 'principal read as a user id',
    explanation:
      'A principal that is not `everyone`, `authenticated`, `g:<group>` or `{{function}}` is a user id, so `admin` means the user named admin, not the admin group (`g:admin`), and `authenticted` a user of that name, not every logged-in user. So does a group written without its `g:` (`partner` where the API names `g:partner` elsewhere, or `user`, a group of the user model) or with another prefix (`group:partner`). The service refuses to register a user id that an x-ACL names: only an admin creates that user.',
  },
  SVC2033: {
    severity: 'warning',
    title: 'ACL without collection rules',
    explanation: 'An x-ACL without `collection` rules denies every collection route. (Ramses allowed everything.)',
  },

  // --- fields, continued -------------------------------------------------------------------------------
  SVC2034: {
    severity: 'warning',
    title: 'index on long values',
    explanation:
      'A field marked `"index": true` may hold long values (a text without `max_length`, or one over 2,000 characters; a dict, list or file). PostgreSQL refuses an index entry of more than 2,704 bytes: there, writing a longer value is a 400 ("a value does not fit its field"), where SQLite and MongoDB take it. Give the field a `max_length` of 2,000 or less, or leave out `"index": true`.',
  },

  // --- events -----------------------------------------------------------------------------------------
  SVC2040: {
    severity: 'error',
    title: 'unknown event',
    explanation:
      'Event tags are `before_<action>` or `after_<action>`, with actions index, create, update_many, delete_many, collection_options, show, update, replace, delete, item_options, login, logout, register and set.',
  },
  SVC2041: {
    severity: 'warning',
    title: 'event never fires',
    explanation: 'login, logout and register events fire for the user model only.',
  },
  SVC2042: {
    severity: 'error',
    title: 'user functions share a module',
    explanation:
      'Each handler, processor, principal and default gets a module named after it (`set_owner` → `set-owner.ts`, function `setOwner`); two names that differ only in case or separators would share one.',
  },

  // --- relationships ----------------------------------------------------------------------------------
  SVC2050: {
    severity: 'error',
    title: 'unknown related model',
    explanation:
      'A relationship `document` or foreign key `ref_document` names a model that no resource defines; or a relationship `document` names one that only its own nested route defines, from the schema of the model its name says (`"docks"` naming `"Dok"` where `/docks` is `Dock`): a misspelt name, which would make a second model and table of the same objects, where the nested route\'s creates go.',
  },
  SVC2051: {
    severity: 'error',
    title: 'relationship without backref',
    explanation: 'A relationship needs `backref_name`: the field svcgen adds to the target model.',
  },
  SVC2052: {
    severity: 'error',
    title: 'backref collides with a field',
    explanation:
      'The backref field svcgen would add to the target model already exists there (as a field with `_db_settings`).',
  },
  SVC2053: {
    severity: 'error',
    title: 'one-to-one declared twice',
    explanation:
      'A one-to-one relationship is declared on one of its two models; the other side is the generated backref.',
  },
  SVC2054: {
    severity: 'error',
    title: 'duplicate backref',
    explanation: 'Two relationships would add a backref with the same name to the same model.',
  },
  SVC2055: {
    severity: 'error',
    title: 'invalid foreign_keys',
    explanation:
      "`foreign_keys` names the foreign key field this relationship uses, as `<Model>.<field>`, and that field must reference the relationship's model.",
  },
  SVC2056: {
    severity: 'error',
    title: 'ambiguous foreign key',
    explanation:
      'When one model has several relationships to another, or the target has several foreign keys to it, each relationship says which one it uses with `foreign_keys`.',
  },
  SVC2057: {
    severity: 'warning',
    title: 'foreign key added',
    explanation:
      'No `foreign_key` field stores the relationship (Ramses needed none for MongoDB), so svcgen adds one for the SQL engine. A to-many relationship so stored is one-to-many: each linked object is in one list at a time, and linking it to another object moves it. Where objects belong to several lists (users in several trips), make the link a model of its own (a `Membership` with a relationship to each side).',
  },
  SVC2058: {
    severity: 'error',
    title: 'foreign key references no primary key',
    explanation: '`ref_column` must be `<table>.<primary key>` of the referenced model, e.g. `user.username`.',
  },
  SVC2059: {
    severity: 'error',
    title: 'foreign key type mismatch',
    explanation: '`ref_column_type` must match the type of the referenced primary key.',
  },
  SVC2060: {
    severity: 'error',
    title: 'unused foreign key',
    explanation: 'A foreign key field can only be set through a relationship (its backref), so one must use it.',
  },
  SVC2061: {
    severity: 'error',
    title: 'unknown field in a list',
    explanation:
      '`_public_fields`, `_auth_fields`, `_hidden_fields` and `_nested_relationships` name fields (or relationships) of the model.',
  },
  SVC2062: {
    severity: 'error',
    title: 'foreign key name taken',
    explanation:
      'No `foreign_key` field stores the relationship, and the one svcgen would add (`<backref_name>_<primary key>`) has the name of a field that is not a foreign key.',
  },

  // --- users and authentication -----------------------------------------------------------------------
  SVC2063: {
    severity: 'error',
    title: 'several user models',
    explanation: 'Only one schema can be `"_auth_model": true`.',
  },
  SVC2064: {
    severity: 'warning',
    title: 'implicit user model',
    explanation:
      'Authentication is configured and a model is named User, so it holds the users; say so with `"_auth_model": true`.',
  },
  SVC2065: {
    severity: 'warning',
    title: 'user model without authentication',
    explanation: 'A schema is `_auth_model`, but no x-Ticket or x-ApiKey scheme is in the root `securedBy`.',
  },
  SVC2066: {
    severity: 'warning',
    title: 'weak user model',
    explanation: 'The user model lets passwords be short, or logs in with fields that are not unique.',
  },
  SVC2067: {
    severity: 'warning',
    title: 'password processors',
    explanation:
      "svcgen hashes passwords itself (argon2id), after the field's processors run; a processor that hashes would hash twice.",
  },
  SVC2068: {
    severity: 'warning',
    title: 'unknown JSON type',
    explanation:
      "A property's JSON Schema `type` names no JSON type (`string`, `number`, `integer`, `boolean`, `object`, `array`, `null`): the OpenAPI document and the clients made from it would carry the mistake, whatever `_db_settings.type` says.",
  },

  SVC2069: {
    severity: 'warning',
    title: 'relationship delete rule not applied',
    explanation:
      "A relationship's `ondelete` or `backref_ondelete` asks for another rule than its foreign key's `ref_ondelete`. In Ramses they were MongoDB's rules, which SQL ignored; svcgen applies the foreign key's rule on every engine (NULLIFY when it says nothing; RESTRICT for a required key), so children a schema says are deleted with their parent would stay, unlinked. A required foreign key cannot be unlinked at all: NULLIFY said of one is not applied, and deleting what it links to is refused while it does (409), unless the key says CASCADE.",
  },

  // --- whole-service checks ---------------------------------------------------------------------------
  SVC2070: {
    severity: 'warning',
    title: 'route without ACL',
    explanation: 'With authentication on, a resource whose `securedBy` names no x-ACL may be used by `g:admin` only.',
  },
  SVC2071: { severity: 'warning', title: 'unused ACL', explanation: 'An x-ACL scheme guards no resource.' },
  SVC2072: {
    severity: 'warning',
    title: 'ACLs without authentication',
    explanation: 'x-ACLs apply only when an x-Ticket or x-ApiKey scheme authenticates users.',
  },
  SVC2073: {
    severity: 'error',
    title: 'reserved route',
    explanation:
      'The generated service answers `{base}/health` (its health check), `{base}/openapi.json` (its OpenAPI document) and `{base}/docs` (its API reference page, with `docs/…` assets), `{base}/_events` (its change feed) and `{base}/_webhooks/…` (its webhook deliveries) itself; a resource there would collide with it.',
  },
  SVC2074: {
    severity: 'warning',
    title: 'property without _db_settings',
    explanation:
      'A schema property without `_db_settings` is documentation only, as in Ramses: it is neither stored nor served, and not in the OpenAPI document. Unless a relationship adds a field of that name (a documented backref), svcgen says so, with the `_db_settings` to add.',
  },

  SVC2075: {
    severity: 'warning',
    title: 'JSON type against the field type',
    explanation:
      'A property\'s JSON Schema `type` names no type a value of its `_db_settings` type can have (`"integer"` on a `string` field). svcgen stores and validates the field by `_db_settings`; the JSON type only misleads whoever reads the schema. A relationship links a list of objects unless it says `"uselist": false` (then one): an `array` type on a one-to-one, or another type on a to-many, says the other.',
  },

  SVC2076: {
    severity: 'error',
    title: 'default the field refuses',
    explanation:
      "A literal `default` or `onupdate` that no client could write to its field: of another type, outside `min_value`/`max_value` or the type's range, outside `min_length`/`max_length`, not one of `choices`, not a date or time, not base64 for a file. The service stores defaults without checking them, so it would serve a value against the field's own rules and its OpenAPI document.",
  },

  SVC2077: {
    severity: 'error',
    title: 'model name taken by the generated code',
    explanation:
      "A model is named after its route (`/pages` is `Page`), and the generated TypeScript already gives that name to something else in a module that names every model: TypeScript's `ReturnType` or `Exclude`, the runtime's `EngineRepository`, the committed events' `CommittedEvent`, or another model's `<Model>Create`, `<Model>Update`, `<Model>Where`…. The project would not compile.",
  },

  SVC2078: {
    severity: 'warning',
    title: 'request body the service does not take',
    explanation:
      'A method declares a request body of a media type other than JSON (`application/x-www-form-urlencoded`, `multipart/form-data`, `text/plain`…). The generated service reads JSON bodies only (`application/json` and `+json` types): a request with such a body is answered 415 Unsupported Media Type, whatever its `formParameters` say. The OpenAPI document lists the JSON body alone.',
  },
  SVC2079: {
    severity: 'error',
    title: 'invalid readOnly',
    explanation:
      "JSON Schema's `readOnly` on a property is `true` or `false`. `true`: only admins and the service's own code (event handlers, field processors, defaults) write the field; any other caller's body that names it is refused 403. On a relationship or its foreign key, the whole link is read-only, from both models.",
  },
  SVC2080: {
    severity: 'warning',
    title: 'read-only field nothing sets',
    explanation:
      "A read-only field that is required and has no default is not the caller's to send, so on create the model's `before_create` (or `before_set`) handlers must set it (`event.setFieldValue`). The model has none: a create by anyone but an admin fails with 400 (the field is required).",
  },
  SVC2081: {
    severity: 'warning',
    title: 'item rules the collection rules undo',
    explanation:
      'Item routes fall back to the collection rules for a caller no item line decides (as Ramses did). An item line that gives a permission to a `{{principal}}` (`allow {{owner}} update`) then restricts nothing when a collection line gives the same permission to every member (`allow authenticated update`), or to a group (`allow g:student view`): a member (of that group) who is not the owner reaches that line and may change (or read) every object. The same holds for `view`, and where the collection line gives `view` to `everyone`, anonymous callers read every object too: an item line naming `view` (`allow {{reader}} view`) is said then, one that gets it by `all` (`allow {{owner}} all`: "everyone reads, the owner does the rest") is not. Where everyone is meant to read, take `view` out of the item line, where it gives nothing. A `{{principal}}` on the collection line (`allow {{volunteer}} view`) does the same where the x-ACL guards a flat item route (`/signups/{id}`): it is asked there without the object or a parent, so whomever it lets list it lets at every object. End the item rules with a `deny` for the permission so that they decide alone, or narrow the collection line.',
  },
  SVC2082: {
    severity: 'error',
    title: 'misspelt _db_settings',
    explanation:
      'A property has a key that is nearly `_db_settings` (`_db_setings`, `_dbsettings`). Without `_db_settings` a property is documentation only, neither stored nor served (as in Ramses), and a field the schema lists in `required` would quietly be missing; a misspelling is taken for the mistake it is.',
  },
  SVC2083: {
    severity: 'warning',
    title: 'item handlers a bulk change skips',
    explanation:
      "A collection's `PATCH`/`PUT` (`update_many`) and `DELETE` (`delete_many`) change many objects at once and run the handlers listed for those actions, once for the whole change (as Ramses did), not the model's `update`, `replace` or `delete` handlers. A rule such a handler enforces for one object (a graded submission stays as it is) then does not hold for a change of many: list the handlers under the bulk action too (they get no `event.instance`; `event.db` reads the objects), give it handlers of its own (then this is not said: a model that lists any for the bulk action is taken to keep its rules there), or take the method off the collection.",
  },

  SVC2084: {
    severity: 'warning',
    title: '"required" names no property',
    explanation:
      "The schema's root `required` lists a name that is not one of its `properties`. JSON Schema allows it, and it requires nothing: the field it meant (a misspelling, a renamed field) stays optional.",
  },

  SVC2085: {
    severity: 'error',
    title: 'a range no value fits',
    explanation:
      "A field's JSON Schema keywords set a lower bound above the upper one (`minimum`/`maximum`, `minLength`/`maxLength`, `minItems`/`maxItems`): no value would ever be accepted, so a body that sends the field is always a 400. (The same in `_db_settings`, `min_value` above `max_value`, is SVC2008.)",
  },

  SVC2086: {
    severity: 'warning',
    title: 'object principal on a collection',
    explanation:
      "A collection line of a top-level collection route gives a permission to a `{{principal}}` that the x-ACL's item lines use too (`allow {{owner}} view` in both). On the collection the principal is asked with no object (and, on a route that is not nested, no parent), so one that decides by the object grants nothing there: the owners it was meant for get 403 for the list or the create. `inspect --acl` shows the owner allowed, since it cannot read the principal's code. To let each member list their own objects, give the collection's `view` to `authenticated` and end the item rules with `deny authenticated view`: the list shows only the objects the item rules let the caller view (the principal's `where`). Without that deny, a member the principal does not grant falls back to the collection rules, where the `authenticated` line gives them every object (SVC2081 says so once the line is there); the hint names the deny when the item rules lack it. Or let the principal grant when it is given no object. Where the x-ACL also guards a nested route (`/clubs/{id}/teams`), the principal may decide by the parent there, and a create at the top-level route names one in its body: only the other permissions (a list, a change of many) are said, since a top-level list has neither object nor parent.",
  },

  SVC2087: {
    severity: 'error',
    title: 'misspelt JSON Schema keyword',
    explanation:
      "A key of a property or of the schema's root is nearly a JSON Schema keyword that svcgen reads (`readonly` for `readOnly`, `maxlenght` for `maxLength`, `requried` for `required`), or a root key is nearly one of svcgen's own (`_auth_field` for `_auth_fields`). JSON Schema takes an unknown key as an annotation, so the misspelt one is no rule at all: a `readonly` link stays writable by every member, and an `_auth_field` list hides nothing from them. A misspelling is taken for the mistake it is, as SVC2082 takes a misspelt `_db_settings`; a key near no keyword is left alone (an annotation).",
  },

  SVC2088: {
    severity: 'error',
    title: 'malformed _unique_together',
    explanation:
      'A schema\'s root `_unique_together` is a list of sets of field names, each of two or more fields (`[["team", "number"]]`: no two objects share both a team and a number). One field unique alone says `"unique": true` in its `_db_settings`.',
  },

  SVC2089: {
    severity: 'error',
    title: 'field that cannot be unique together',
    explanation:
      'A name in `_unique_together` must be a stored field of the model with one plain value (text, a number, a date, a choice) or a link to one object whose foreign key the model keeps (`team` for `team_id`). A link to many objects, a link kept by the other model, and list, dict, pickle and file fields have no single value a unique index compares.',
  },

  SVC2090: {
    severity: 'error',
    title: 'JSON Schema rule inside _db_settings',
    explanation:
      'A JSON Schema keyword that is a rule of the property (`readOnly`, `pattern`, `enum`, `maxLength`, `format`, …) is written inside `_db_settings`, where svcgen reads only its storage settings: there it is no rule at all, so a `readOnly` link stays writable by every member and a `pattern` lets any text through. It belongs beside `_db_settings`, in the property itself. So does the `_write_once` of svcgen.',
  },

  SVC2092: {
    severity: 'warning',
    title: 'privacy list that cannot be so',
    explanation:
      "A privacy list says what cannot be, or what is almost surely a slip: `_public_fields` or `_auth_fields` lists the user model's `password`, which no answer ever carries, or `_public_fields` shows anonymous callers a field that `_auth_fields` hides from logged-in ones (a member would see less of an object than a stranger), or a model without `_public_fields` (anonymous callers then see every field) hides fields from members by `_auth_fields` or `_group_fields` while its x-ACL lets anonymous callers view it, or `_group_fields` shows a group a field it would see anyway (every member sees it: `_auth_fields` lists it, or there is no `_auth_fields`) or never (`_hidden_fields` shows it to admins only), or shows a group a field of the user model, which the user it describes sees (and may write) in their own record anyway.",
  },

  SVC2093: {
    severity: 'warning',
    title: 'unreachable x-ACL line',
    explanation:
      'An x-ACL line names only permissions that a line above it, in the same rules (item or collection), already decides for every caller it names (`everyone` names all; `authenticated` every logged-in user, a group or a user among them; a group or a user itself): the rules stop at the first line that names the permission and the caller, so this line is never read. `deny everyone all` ends the rules; the lines after it count for nothing. Said too of a `deny` that an `allow` above gives way for some of its permissions (`deny g:banned all` below `allow authenticated view, update`: banned members still view and update): put denies first.',
  },

  SVC2094: {
    severity: 'warning',
    title: 'link list hidden with the link it mirrors',
    explanation:
      "A privacy list shows a link kept in the other model's rows (a user's `stories`) to callers from whom that model hides its link back (each story's `owner`): the keys in the list would tell them whose each object is, which the other model keeps from them. The service does not show them the list; the warning says so where the list claims otherwise. Show both links to them, or neither.",
  },

  SVC2095: {
    severity: 'warning',
    title: 'delete handlers a cascade skips',
    explanation:
      "Deleting an object takes with it the objects a relationship says so of (`ondelete: CASCADE`): each gets its `delete` event, but their `before_delete` and `after_delete` handlers do not run. What those handlers do for one object (keep a count on its parent, refuse a delete, clean up) does not happen for the objects a cascade takes. Do it in the deleted model's `after_delete` handler for the objects it takes, in a subscriber of the target's `delete` events (cascaded objects get theirs, after the commit), or make the link `RESTRICT` so that they are deleted one by one first.",
  },

  SVC2096: {
    severity: 'warning',
    title: 'function name near a built-in',
    explanation:
      'A `default` or `onupdate` names a function (`{{nwo}}`) that is one slip away from a built-in (`{{now}}`, the current time). A name that is not built in is a function you write: svcgen stubs it, and until it is written the field gets no value. Write the built-in, or keep the name if the function is yours.',
  },

  SVC2097: {
    severity: 'error',
    title: 'misspelt field parameter',
    explanation:
      "A key in a field's `_db_settings` is one slip away from one of its parameters (`min_vlaue` for `min_value`, `requried` for `required`). Unknown keys are otherwise ignored, as Ramses ignored them, so the bound, the requirement or the default it meant would quietly not apply: a misspelling is taken for the mistake it is, as a misspelt JSON Schema keyword is (SVC2087).",
  },
  SVC2098: {
    severity: 'warning',
    title: 'group no user can be in',
    explanation:
      "An x-ACL line or `_group_fields` names a group that the user model's `groups` does not list among its `choices`, so no user can be in it: the line or the fields are for no one. Often a slip (`g:recepionist` for `g:receptionist`); the rule it meant then quietly does not apply. Group names are read lower-cased. `admin` is always a group.",
  },
  SVC2099: {
    severity: 'error',
    title: 'invalid _svcgen_ignore',
    explanation:
      'A schema\'s `_svcgen_ignore` silences warnings located in that schema: it is a list of the codes of svcgen\'s warnings (`["SVC2092"]`). A code that is no warning (an error is never silenced, a typo silences nothing) is refused.',
  },
  SVC2100: {
    severity: 'warning',
    title: 'principal named once, near another',
    explanation:
      'An x-ACL line names a `{{principal}}` once, and it is one slip away from another principal the x-ACLs name more often (`{{ridr}}` beside `{{rider}}`). Each name is a user function of its own (src/custom/principals/), so a misspelt one gets a stub that matches no one until written, and the line it is on quietly lets no one in. Rename it, or write its function if it is meant.',
  },
  SVC2101: {
    severity: 'warning',
    title: 'one-to-one link with a backref named as a list',
    explanation:
      'A relationship with `"uselist": false` on the model that holds its foreign key is a one-to-one link: the foreign key is unique, so each target has one such object at most. Its `backref_name` is a plural (`box_items`), as if each target had many: a many-to-one link seen from this side. That is declared on the target, the "one" side (`"box_items": {"type": "relationship", "document": "BoxItem", "backref_name": "product"}` on Product); the foreign key stays where it is. As written, a second object linked to the same target is a 409.',
  },

  SVC2102: {
    severity: 'warning',
    title: 'users private to strangers only',
    explanation:
      'The user model lists what anonymous callers see (`_public_fields`) but not what logged-in members see (`_auth_fields`): without it a member is shown every field (as Ramses did), so every member who may view another user reads their email and whatever else the record holds. `_public_fields` alone reads as "users are private", and is not. List what members see of other users in `_auth_fields` (a user always sees all of their own record), or silence it where every member is meant to see everything.',
  },

  SVC2103: {
    severity: 'warning',
    title: 'a delete refused by what it takes along',
    explanation:
      "A delete takes with it the objects its foreign keys say so of (`ref_ondelete: CASCADE`), or unlinks them (`NULLIFY`), and only when the caller may delete each of them, or change it, too: the service refuses a delete that would take along what the caller could not. Here members may delete the model's objects, but no line of the other model's x-ACL lets anyone but admins do that to its objects (or no route does it at all), so every member's delete of an object that has any is refused with 403, while the ACL matrix says they may. Give the same callers that permission on those objects, or make the link `RESTRICT` (they are deleted first, by whoever may).",
  },
  SVC2104: {
    severity: 'error',
    title: "a model named as one of svcgen's own",
    explanation:
      "With authentication, svcgen adds models of its own to the API, never served by a route: `AuthCredential` (session epochs and token digests), `AuthLoginFailure` (the login brake's counts) and `AuthLoginName` (the plain form each username claims). A resource whose model has one of those names would take its place: its table would lack the columns the runtime writes, and every registration and login would fail. A model takes its name from its resource (`/auth_credentials` is `AuthCredential`): rename the resource.",
  },
  SVC2105: {
    severity: 'error',
    title: 'a user granted by a key the database hands out',
    explanation:
      "A principal that is not a keyword, `g:<group>` or `{{function}}` is a user's key, as in Ramses (`allow 7 view` grants the user whose key is 7). Where the user model is keyed by a number (an `id_field`, or an `integer`, `big_integer` or `small_integer`, which the database numbers where a body leaves it out, and which a registration may name), the database gives each new user the next number: the line does not name a person but a place in the order of registrations, and with registration open (the default) a stranger who registers at the right moment has what it gives. Ids also differ between the development database the line was written against and production. Grant a group and give it to the user (an admin's `PATCH` of their `groups`), or key the user model by its username.",
  },

  SVC2106: {
    severity: 'warning',
    title: 'a user principal no key can be',
    explanation:
      "A principal that is not a keyword, `g:<group>` or `{{function}}` is a user's key. Where the user model is keyed by a number (`id_field`, `integer`, …), a principal that is not a number (`allow alice view`) can never be one: the line matches no one. Grant a group, or key the user model by its username (then the principal is a username, and no one may register it: an admin creates that user). Nor can any user be `self` (`/users/self` is the logged-in user): a line naming it matches no one either; a principal function grants each user what is theirs.",
  },
  SVC2108: {
    severity: 'warning',
    title: 'RAML parameter the service does not serve as declared',
    explanation:
      "A RAML `queryParameters` entry names neither a field of the list's model nor a parameter the service takes (`_limit`, `_page`, `_start`, `_after`, `_sort`, `_fields`, `_count`, `q`, `_search_fields`): the service answers a request with it 400. Or an item resource's `uriParameters` types its key as a number where the model is keyed by text (or as text where it is keyed by a number): items are looked up by the key as the model stores it. Or a parameter it takes (a filter, `_limit`, an item's key, a header) is declared with rules (`required`, `enum`, `pattern`, `minimum`, `maximum`, `minLength`, `maxLength`, `default`) that the service does not apply: a `_limit` of `maximum: 5` still gives pages of `max_limit`. The service serves its own parameters (each field's filters, documented in openapi.json) by its own rules (the field's schema, service.ini); RAML's declarations of them are read by no one.",
  },
  SVC2109: {
    severity: 'warning',
    title: "body schema that is not the model's",
    explanation:
      "A method other than the POST that defines a model (a PATCH, a PUT) declares a JSON body schema that is not that model's: the service checks every body against the model's fields, from the schema of its POST, and never reads this one (a copied line that names another resource's schema, most often). Include the model's schema there, or leave the schema out.",
  },
  SVC2110: {
    severity: 'warning',
    title: 'one schema defines two models',
    explanation:
      "Two resources' POST bodies include the same schema: each defines a model of its own (two tables of the same fields, stored apart), which is seldom meant. Most often one line was copied from another resource and names its file: its model then has the other's fields, and the hints that follow (a foreign key no link uses, a backref already taken) point the wrong way. Give each model a schema of its own; where two kinds of object really share their fields, say nothing.",
  },
  SVC2111: {
    severity: 'warning',
    title: 'item handlers the other method skips',
    explanation:
      "`PATCH` of an item runs the model's `update` handlers and `PUT` its `replace` handlers; `set` lists a handler for both (and for `create`). A rule that a handler listed under one of them alone enforces (a room is not double-booked) then holds for one method and not for the other, on the same object: list the handler under `set` (or under both actions), or take the other method off the route. Said for each item route that declares the method that skips the handlers.",
  },
  SVC2112: {
    severity: 'warning',
    title: 'link list hidden while its link back is shown',
    explanation:
      "A privacy list keeps a link kept in the other model's rows (a speaker's `proposals`) from callers to whom that model shows its link back (each proposal's `speaker`): the link back tells them the same, and a filter on it (`GET /proposals?speaker=4`) lists what the first answer leaves out. Hide both links from them, or neither.",
  },
  SVC2113: {
    severity: 'warning',
    title: 'nested create picks a read-only link',
    explanation:
      "A nested route's `post` links each new object to the parent its URL names, through a link that `\"readOnly\": true` keeps members from writing anywhere else (a request's `owner`). Where the route's x-ACL lets members create by a line that does not look at the parent (`allow authenticated create`), any member creates objects below any parent, and so chooses the link the schema keeps from them. The x-ACL decides, as it says. Decide creates by the parent (a `{{principal}}` that reads `rule.parent`), or set the link in a `before_create` handler (a create below another parent is then refused), or take `post` off the nested route.",
  },
  SVC2114: {
    severity: 'warning',
    title: 'nested route shows what the own route refuses',
    explanation:
      "Each route is decided by its own x-ACL. A nested route (`/units/{id}/requests`) whose x-ACL lets every member, or every anonymous caller, view its objects reads, lists, counts and searches the ones their own item route (`/requests/{id}`) keeps from them. Guard the nested route with the same x-ACL as the objects' own route, or one that shows no more.",
  },
  SVC2115: {
    severity: 'error',
    title: 'model name too long',
    explanation:
      "A model is named by its resource's path segment (`/stories` → `Story`), its table by the name lower-cased, and its files by it too. PostgreSQL cuts a table name longer than 63 bytes without a word (two models could then share a table), and file systems refuse a file name longer than 255 bytes. Name the resource with fewer letters.",
  },
  SVC2116: {
    severity: 'error',
    title: 'invalid _write_once',
    explanation:
      "`_write_once` on a property (beside `_db_settings`) is `true` or `false`. `true`: whoever may create an object sets the field in the create; afterwards only admins and the service's own code (event handlers, field processors) change it, and anyone else's update that changes it is refused 403 (a body that says back its value unchanged is no change). It is for what an item rule decides by, a link above all: a captain who may update her team's appearance could otherwise move it onto another team's player. On a link, the model that holds its key sets it when created; from the other model the link is read-only, since writing it there moves objects that exist.",
  },
  SVC2117: {
    severity: 'warning',
    title: 'write-once field with onupdate',
    explanation:
      "A write-once field (`_write_once`) is set by the create and changed afterwards by admins and the service's own code alone. `onupdate` is such code: it gives the field a new value on every update that does not send it, so every member who may update the object changes it too (a parcel's `stamp` moved on each change of its weight). Drop `onupdate` to keep what the create set, or `_write_once` where the service is to stamp the field on each update (then `readOnly` keeps clients from sending it).",
  },
  SVC2118: {
    severity: 'warning',
    title: 'decimal precision past what a JSON number keeps',
    explanation:
      "A decimal field's values travel as JSON numbers, which clients and the service read as 64-bit floats: those keep 15 significant digits exactly, and no more. The service refuses a value with more (a 400 that says so) rather than store it rounded, so a `precision` above 15 promises digits no write can give: 12345678901234567.89 fits `precision: 19` and cannot be sent. Keep `precision` at 15 or less; a value that needs more digits (an amount in a currency's smallest unit past 10¹⁵, say) is better stored as text, or as a whole number of a smaller unit (`biginteger` holds up to 2⁵³ exactly).",
  },
  SVC2119: {
    severity: 'error',
    title: 'JSON Schema keyword with a value of the wrong kind',
    explanation:
      'A keyword\'s value is not of the kind JSON Schema gives it: a length or a count that is no whole number (`"maxLength": "10"`, in quotes), a bound that is no number (`"minimum": "0"`), an `enum` that is no list, a `type` that names no JSON type, an `items` that is no schema. The generated service\'s validator would refuse the schema, and the service would not start. Draft 4\'s `"exclusiveMinimum": true` is taken beside a `minimum` (as `"exclusiveMinimum": <the minimum>`, the form since draft 6); without one it bounds nothing.',
  },
  SVC2120: {
    severity: 'warning',
    title: 'JSON Schema keyword the service does not apply',
    explanation:
      "The generated service checks a value against its property's own keywords (type, bounds, lengths, `pattern`, `enum`, `format`…). It does not apply `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependencies` or `contains` written on a property or at a schema's root, nor a `format` it has no check for (`money`, `phone`): JSON Schema takes an unknown format as a note, so any string passes. A field defined only inside an `allOf` is no field. Write each property's rules on the property, a shape as a `pattern`, and a rule across fields (one of two fields required, say) in a before handler (`_event_handlers`). Inside a dict's or a list's own schema (`items`, a dict's `properties`) these keywords are applied.",
  },
  SVC2121: {
    severity: 'error',
    title: "a method's own x-ACL",
    explanation:
      "svcgen guards a route, and every method of it, with one x-ACL: the first of its resource's `securedBy` (or, without one, its parent's or the root's). Its rules say what each method may do: `view` (GET), `create` (POST), `update` (PATCH, PUT), `delete` (DELETE). A method's own `securedBy` (written on the method, or brought by a trait or a resource type) that names another x-ACL would be ignored, and what it keeps from callers would be allowed by the route's: a GET guarded `admin only` on a resource guarded `everyone` answered anyone. Guard the resource with one x-ACL whose rules say, per permission, who may do what.",
  },
  SVC2122: {
    severity: 'error',
    title: 'a collection name that names no model',
    explanation:
      "A collection's model is named after its resource (`/stories` is `Story`), and so are its table, its TypeScript types and its files: in ASCII letters and digits, a letter first. A resource named with other letters (`/cafés`, `/日本`) would lose them (`/cafés` was the model `Caf`, and one model with `/cafs`) or name nothing; one that starts with a digit (`/123`, `/2fa_codes`) names no TypeScript type. Name the collection in ASCII letters (`/cafes`, `/two_factor_codes`); its URL is its name, and its objects' fields may hold any text.",
  },
  SVC2107: {
    severity: 'error',
    title: 'names the database cannot tell apart',
    explanation:
      "A model's table is its name lower-cased, and its name comes from its resource (`/pet_toys` is `PetToy`, `/pettoys` is `Pettoy`: both are stored in `pettoy`); SQLite compares column names without case (`Weight` and `weight` are one column). Two models of one table, or two fields of one column, would make a service whose first migration fails at start. Rename one of the two resources, or one of the two fields.",
  },

  // --- writing the out-dir: the out-dir and its manifest are untrusted input ---------
  SVC3001: {
    severity: 'error',
    title: 'invalid manifest',
    explanation:
      '`.svcgen/manifest.json` in the out-dir is not a manifest svcgen wrote: not JSON, or a value of the wrong shape. svcgen writes and deletes nothing, because the manifest decides what it may overwrite and delete.',
  },
  SVC3002: {
    severity: 'error',
    title: 'unsafe path',
    explanation:
      'A path svcgen would write or delete (from the manifest or the planned tree) is not a plain relative path inside the out-dir: it is absolute, has a drive letter, `..`, `.` or empty segments, a backslash or a NUL. svcgen writes and deletes nothing in that run.',
  },
  SVC3003: {
    severity: 'error',
    title: 'path through a symbolic link',
    explanation:
      'A path svcgen would write or delete goes through a symbolic link in the out-dir that leads outside it (or nowhere). svcgen never writes or deletes outside the out-dir, so it writes and deletes nothing in that run. The out-dir itself may be a link.',
  },
  SVC3004: {
    severity: 'error',
    title: 'wrong kind of file',
    explanation:
      'The out-dir is not a folder; or, inside it, where svcgen needs a folder there is a file, or where it needs a file there is a folder (or a device, pipe or socket). svcgen replaces neither, even with `--force`, and writes nothing in that run.',
  },
  SVC3005: {
    severity: 'error',
    title: 'edited generated file',
    explanation:
      'A generated file was changed since svcgen wrote it. svcgen does not overwrite it unless `--force`; move your changes to the user-owned files.',
  },
  SVC3006: {
    severity: 'error',
    title: 'file not written by svcgen',
    explanation:
      'A file svcgen would write is already there and the manifest does not record svcgen writing it (or records it as yours). svcgen does not overwrite it unless `--force`.',
  },
  SVC3007: {
    severity: 'warning',
    title: 'edited stale file kept',
    explanation:
      "svcgen no longer generates this file, and keeps it instead of deleting it: it was edited since svcgen wrote it, or nothing but the manifest shows that svcgen wrote it (its first line is not svcgen's generated header, or it is of a type that has none, such as JSON). The manifest is untrusted input: an entry added to it by hand or in a pull request never makes svcgen delete a file. Delete the file if it is not needed.",
  },
  SVC3008: {
    severity: 'warning',
    title: 'unused stub',
    explanation:
      'A user-owned stub (handler, processor, principal or default) that the API no longer refers to. svcgen never deletes your code: it is kept and reported on every run until you delete it.',
  },
  SVC3009: {
    severity: 'warning',
    title: 're-created stub',
    explanation:
      'A user-owned file (a handler, processor, principal or default) that the manifest records was missing from the out-dir, and the API still refers to it: svcgen wrote a new, empty stub in its place, which does nothing (a handler that set an owner now sets none). Restore your code from version control, or take the name out of the API if it is no longer needed.',
  },
  SVC3010: {
    severity: 'error',
    title: 'out-dir out of date',
    explanation:
      '`generate --check` found that generating would change the out-dir: the API changed since it was generated, or svcgen did, or files in it were edited (a migration edited and not yet recorded, SVC3107, is one). The files are listed after it (on stdout; on stderr with `--format json`, where stdout holds the diagnostics), each with a short diff. Run `svcgen generate` to update it; the hint says what else it takes (edited files, or a change generating refuses as it is).',
  },
  SVC3011: {
    severity: 'error',
    title: 'out-dir not writable',
    explanation:
      'The file system refused a write to the out-dir: no permission (its owner, its mode, a read-only mount), no space left, or a folder that cannot be made. svcgen writes every file of a run under a temporary name before it puts any in place, so such a refusal leaves the out-dir as it was (the temporary files removed); only a refusal while files are put in place leaves some of them there, which the message lists, with the manifest not updated: generate again once it can write.',
  },
  SVC3012: {
    severity: 'error',
    title: 'out-dir being written by another svcgen',
    explanation:
      "Another `svcgen generate` holds the out-dir's lock (`.svcgen/lock`, which says which process, on which machine, since when): two runs at once would each read the manifest before the other wrote it, and the later one would take the earlier one's files for edits of yours. Nothing was read or written; run again once it has finished. `--check` and `--dry-run` take no lock (they write nothing), but they too refuse an out-dir being written. A lock whose process has ended on this machine is taken over; one left by a run on another machine (an out-dir on a shared folder) is yours to delete once no svcgen writes there.",
  },
  SVC3013: {
    severity: 'warning',
    title: 'file taken as a stub',
    explanation:
      "svcgen would create a user-owned stub (an event handler's, a field processor's, a principal's) at a path where a file it did not create is already: it keeps the file as it is, and from then on it is the stub, yours (the manifest records it so, and this is said once). The generated modules import the stub's function by name, so the file must export what the stub would (the message names it); else `npm run build` fails in the module that imports it. If the file is not meant as that stub, move it away and generate again.",
  },
  // --- schema evolution (migrations) ---------------------------------------------------------------
  SVC3101: {
    severity: 'error',
    title: 'change drops data',
    explanation:
      'The new version of the API removes a model or field, or narrows a type, so the migration would drop or convert stored data. svcgen writes nothing unless `generate` runs with `--allow-data-loss`; then the migration says in a comment what it drops (and this is a warning). If the field or model was renamed, say so with `renamed_from` (fields, in `_db_settings`) or `_renamed_from` (models, at the top of the schema): the data is kept.',
  },
  SVC3102: {
    severity: 'error',
    title: 'stored rows need a value',
    explanation:
      'A required field is added, and the rows already stored have no value for it (or a unique field is added with a default every row would share). Give the field a literal `default`: the migration fills it in (a callable default cannot be run by a migration); or add it as optional, give the rows values, then make it required (SVC3108 checks them).',
  },
  SVC3103: {
    severity: 'error',
    title: 'rename names nothing',
    explanation:
      "`renamed_from` (or a model's `_renamed_from`) must name a field (model) of the previous version of the API that the new version no longer has. Renames are never guessed; a hint that names nothing is an error rather than being ignored. A hint on a field (model) the previous version had already is a warning, once: nothing is renamed (a typo, or a rename svcgen did not record), and the hint is recorded when written.",
  },
  SVC3104: {
    severity: 'error',
    title: 'change a migration cannot make',
    explanation:
      'The schema change cannot be written as a migration: a field changes whether it is the primary key, a field changes to a type none of its stored values can be converted to (a time become a datetime: which day? a date become a number; PostgreSQL has no cast for them, even for an empty table), the project has migrations but no `src/db/storage.json` to compare the API with, or two indexes svcgen makes would share a name (a field `title_search` marked `"index": true` beside the searched text field `title`: both `<table>_title_search_idx`).',
  },
  SVC3105: {
    severity: 'error',
    title: 'storage model unreadable',
    explanation:
      '`src/db/storage.json` in the out-dir is not a storage model svcgen wrote (not JSON, or a value of the wrong shape). svcgen compares the API with it to write the next migration, so it writes nothing; restore the file from version control.',
  },
  SVC3106: {
    severity: 'error',
    title: 'migration deleted',
    explanation:
      'A migration module svcgen wrote (`src/db/migrations/NNNN_*.ts`) is no longer in the out-dir. Databases that ran it expect it and new databases need it: restore it from version control.',
  },
  SVC3107: {
    severity: 'warning',
    title: 'migration edited',
    explanation:
      'A migration module svcgen wrote is not as it wrote it. Before any database has run it, that may be meant (a step added by hand), and the next generation records it as it is. After, every database that ran it refuses to start, since the migration it applied has changed: restore it, and change the storage in a new migration. `--check` fails on it (SVC3010) until a generation records the edit, so that a pull request that edits a migration is seen: the edit either fails CI or shows as a change of `.svcgen/manifest.json`.',
  },
  SVC3108: {
    severity: 'warning',
    title: 'stored rows are checked for a value',
    explanation:
      'A field that was optional becomes required, with no `default` for the rows that have no value. The migration checks them before it changes anything: on SQLite, PostgreSQL and MongoDB it fails, naming the field, while a stored row (document) has no value for it, and the service does not start on a database it could not migrate. Give those rows a value first (an admin, a script), or a literal `default` in the same change, which the migration gives them: a default given once this migration is written reaches no stored row (the migration as written still checks, and fails; edit it into a fill, `update … set … where … is null`, which SVC3107 then notes). A link a handler needs is made required so, with no default that would mean nothing.',
  },
  SVC3117: {
    severity: 'warning',
    title: 'stored rows are checked for a shared value',
    explanation:
      'A field that was not unique becomes unique. The migration makes its unique index (on MongoDB, at start), which fails on the first two stored rows (documents) that share a value: nothing of the migration is applied, and the service does not start on a database it could not migrate. Give those rows values of their own first (an admin, a script).',
  },
  // --- the API's contract with its clients ---------------------------------------------------------
  SVC3111: {
    severity: 'error',
    title: 'change breaks clients',
    explanation:
      "The new version of the API changes what clients already rely on: every route moved to a new base path (the `baseUri` with its `{version}`), a route or method removed, a response field removed or made nullable or optional, a field's type narrowed or changed, an enum value removed, a request field made required (or added as required), a query parameter or operator removed, a route guarded more strictly by its ACL, a response field hidden from callers who saw it (field privacy), a path parameter renamed, a smaller page size. `generate` compares the out-dir's `openapi.json` (the contract clients were given) with the new one and writes nothing unless it runs with `--allow-breaking`; then this is a warning and the change is recorded in `API-CHANGES.md`. A field renamed with `renamed_from` keeps its stored data but is still renamed for clients. `--check` reports the breaking changes the out-dir does not record. `svcgen diff` lists the same changes between any two versions. An API before its first release says `version: v0` (any version whose major number is 0): while the out-dir's contract has such a version, breaking changes are listed with the compatible ones and written, not refused.",
  },
  SVC3112: {
    severity: 'warning',
    title: 'previous OpenAPI document unreadable',
    explanation:
      "The out-dir's `openapi.json` is not an OpenAPI document svcgen can read (not JSON, or not an object with `paths`), so svcgen cannot tell what the new version of the API changes for clients. It generates anyway and writes a new `openapi.json`; restore the old one from version control first to see the changes.",
  },
  SVC3114: {
    severity: 'error',
    title: 'release named twice',
    explanation:
      'API-CHANGES.md already has a release of the name `--release` gives, below its newest entry: two entries of one name would tell clients two different things of one version. Name the release anew (the next version). The newest entry may be named again: a run of the same release adds to it.',
  },
  SVC3115: {
    severity: 'warning',
    title: 'nothing to release',
    explanation:
      "`--release` names the changes clients have not been told of yet (API-CHANGES.md's Unreleased entry, and this run's), and there are none: no entry is written, and the name is not used.",
  },
  SVC3116: {
    severity: 'warning',
    title: 'stored objects without a computed default',
    explanation:
      'An optional field is added with a default computed for each new object (`{{invite_code}}`, a function of the project\'s). A migration cannot run it, so the objects stored before get no value (null), while every new one gets its own. Give them values once the migration has run, with a script of your own or an `update` added to the new migration before it has run anywhere (the generated README\'s "Moving data between fields"). A required field with such a default is refused instead (SVC3102).',
  },
  SVC3113: {
    severity: 'warning',
    title: 'stored values outside a narrowed field',
    explanation:
      'A field of a model already served now takes fewer values: fewer `choices`, a lower `max_value` or higher `min_value`, a shorter `max_length` where the stored type has no length of its own, a new pattern. (Where it has one, as a `string` column does, the shorter length narrows the stored type: that is SVC3101, and its migration fails, applying nothing, while a stored value is longer.) The migration changes no stored value, so objects written before may hold values the field no longer allows: answers still show them (outside what the new `openapi.json` and the typed client say), and a filter by a choice taken away is refused (the hint says how a GET finds them). Find and change them (an admin, or a script of your own) once the migration has run; or narrow the field only after they are gone.',
  },
} as const satisfies Record<string, CodeInfo>;

export type DiagnosticCode = keyof typeof codes;
