/**
 * With authentication configured, one model is the user model: the schema with
 * `"_auth_model": true`, else a model named `User`, else a default `User` that svcgen generates.
 * It gets `username`, `email`, `password` and `groups` where the schema lacks them.
 */
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import type { Span } from '../../diagnostics/source.js';
import type { MutableField } from './fields.js';
import { authFields, synthesizedField, type ModelDraft } from './models.js';
import { CREDENTIAL_MODEL, LOGIN_FAILURE_MODEL, LOGIN_NAME_MODEL } from '../types.js';

export function settleUserModel(
  diagnostics: DiagnosticBag,
  models: Map<string, ModelDraft>,
  authAt: Span | null,
): ModelDraft | undefined {
  const marked = [...models.values()].filter((m) => m.isAuthModel);
  for (const extra of marked.slice(1)) {
    diagnostics.report('SVC2063', `${extra.name} and ${marked[0]!.name} are both marked "_auth_model"`, {
      span: extra.authModelSpan ?? extra.definedAt,
      hint: 'one model holds the users',
    });
    extra.isAuthModel = false;
  }
  if (!authAt) {
    if (marked[0]) {
      diagnostics.report(
        'SVC2065',
        `${marked[0].name} is the "_auth_model", but no x-Ticket or x-ApiKey scheme is in the root securedBy, so no one can log in`,
        {
          span: marked[0].authModelSpan ?? marked[0].definedAt,
          hint: 'declare an x-Ticket scheme and add it to the root securedBy',
        },
      );
    }
    return marked[0];
  }
  let user = marked[0];
  if (!user && models.has('User')) {
    user = models.get('User')!;
    user.isAuthModel = true;
    diagnostics.report('SVC2064', 'User is used as the user model', {
      span: user.definedAt,
      hint: 'say so in its schema: "_auth_model": true',
    });
  }
  if (!user) {
    user = defaultUserModel(authAt);
    models.set(user.name, user);
  }
  completeUserModel(diagnostics, user);
  return user;
}

function defaultUserModel(at: Span): ModelDraft {
  return {
    ...synthesizedModel(at, authFields(false)),
    name: 'User',
    table: 'user',
    plural: 'users',
    schemaFile: '(default user model)',
    title: 'User',
    isAuthModel: true,
    isDefaultUserModel: true,
    primaryKey: 'username',
  };
}

/** A model svcgen adds itself: its fields, and none of the settings a schema gives. */
function synthesizedModel(
  at: Span,
  fields: readonly MutableField[],
): Omit<ModelDraft, 'name' | 'table' | 'plural' | 'schemaFile' | 'title' | 'primaryKey'> {
  return {
    definedAt: at,
    fields: fields.map((field) => ({ field, nameSpan: at, typeSpan: at, processorSpans: [] })),
    isAuthModel: false,
    authModelSpan: null,
    isDefaultUserModel: false,
    publicFields: null,
    authFields: null,
    hiddenFields: null,
    groupFields: [],
    nestedRelationships: null,
    uniqueTogether: [],
    eventPrevious: null,
    nestingDepth: 1,
    withoutProperties: false,
    eventHandlers: null,
    renamedFrom: null,
    relationships: [],
  };
}

function completeUserModel(diagnostics: DiagnosticBag, user: ModelDraft): void {
  const hasPrimaryKey = user.primaryKey !== '';
  for (const field of authFields(hasPrimaryKey)) {
    if (user.fields.some((f) => f.field.name === field.name)) continue;
    user.fields.push({ field, nameSpan: user.definedAt, typeSpan: user.definedAt, processorSpans: [] });
    if (field.primaryKey) user.primaryKey = field.name;
  }
  const password = user.fields.find((f) => f.field.name === 'password')!;
  if ((password.field.minLength ?? 0) < 8 && !password.field.synthesized) {
    diagnostics.report(
      'SVC2066',
      `passwords of ${user.name} may be as short as ${password.field.minLength ?? 0} characters`,
      {
        span: password.nameSpan,
        hint: 'NIST SP 800-63B asks for at least 8: "min_length": 8',
      },
    );
  }
  // The service stamps `last_login` at each login (Ramses' did): no member writes it, at registration
  // or later (a probe's member set theirs to 2020). An admin still may, as any read-only field.
  const lastLogin = user.fields.find((f) => f.field.name === 'last_login');
  if (lastLogin && !lastLogin.field.synthesized) lastLogin.field.readOnly = true;
  for (const name of ['username', 'email'] as const) {
    const f = user.fields.find((x) => x.field.name === name)!;
    if (!f.field.unique && !f.field.primaryKey) {
      diagnostics.report('SVC2066', `${user.name}.${name} must be unique to log in with it; svcgen makes it unique`, {
        span: f.nameSpan,
        hint: 'add "unique": true',
      });
      f.field.unique = true;
    }
  }
  if (password.field.processors.length) {
    diagnostics.report(
      'SVC2067',
      `svcgen hashes ${user.name}.password itself (argon2id); its processors get the plain password and what they return is hashed`,
      {
        span: password.processorSpans[0] ?? password.nameSpan,
        hint: 'remove hashing processors such as "encrypt"',
      },
    );
  }
}

/**
 * Logging out, changing the password and deleting the user invalidate tickets issued
 * before, and API tokens are stored hashed. Both need state per user: a session epoch that tickets
 * carry, and the token's digest. They live in a model of their own, away from the user's fields,
 * so no route or serializer can ever show them.
 */
export function addCredentialModel(diagnostics: DiagnosticBag, models: Map<string, ModelDraft>, at: Span): void {
  if (nameTaken(diagnostics, models, CREDENTIAL_MODEL, 'its store of login credentials')) return;
  const fields = [
    synthesizedField('user_key', {
      primaryKey: true,
      required: true,
      maxLength: 255,
      helpText: "the user's primary key, as text",
    }),
    synthesizedField('session_epoch', {
      type: 'integer',
      required: true,
      default: { kind: 'literal', value: 0 },
      helpText: 'tickets issued before the last logout or password change carry an older epoch',
    }),
    synthesizedField('token_digest', {
      unique: true,
      maxLength: 64,
      helpText: 'SHA-256 of the API token (x-ApiKey), hex',
    }),
  ];
  models.set(CREDENTIAL_MODEL, {
    ...synthesizedModel(at, fields),
    name: CREDENTIAL_MODEL,
    table: 'auth_credential',
    plural: 'auth_credentials',
    schemaFile: '(svcgen: login credentials)',
    title: 'Login credentials',
    internal: true,
    primaryKey: 'user_key',
  });
}

/**
 * The brute-force brake counts failed logins per login and client address in the database, not
 * in one process's memory: every instance behind a balancer sees the same count, and a restart
 * does not forget it.
 */
export function addLoginFailureModel(diagnostics: DiagnosticBag, models: Map<string, ModelDraft>, at: Span): void {
  if (nameTaken(diagnostics, models, LOGIN_FAILURE_MODEL, 'its count of failed logins')) return;
  const fields = [
    synthesizedField('attempt_key', {
      primaryKey: true,
      required: true,
      maxLength: 64,
      helpText: 'SHA-256 of the login and the client address, hex',
    }),
    synthesizedField('failures', {
      type: 'integer',
      required: true,
      default: { kind: 'literal', value: 0 },
      helpText: 'failed logins in the current window',
    }),
    synthesizedField('window_ends', {
      type: 'datetime',
      required: true,
      // The brake forgets the windows that are over by this column: without an index, that reads
      // the whole table (on SQLite, the whole process waits for it).
      index: true,
      helpText: 'when the count starts again (older rows are deleted)',
    }),
  ];
  models.set(LOGIN_FAILURE_MODEL, {
    ...synthesizedModel(at, fields),
    name: LOGIN_FAILURE_MODEL,
    table: 'auth_login_failure',
    plural: 'auth_login_failures',
    schemaFile: '(svcgen: failed logins)',
    title: 'Failed logins',
    internal: true,
    primaryKey: 'attempt_key',
  });
}

/**
 * A username that passes for another (`joé`, Cyrillic `jое` beside `joe`) is refused in either
 * order and however close together the two writes come: each username claims its plain form in a
 * row keyed by that form, in the write's transaction, so the second claim of a form meets the
 * first (lib/auth/login-names.ts).
 */
export function addLoginNameModel(diagnostics: DiagnosticBag, models: Map<string, ModelDraft>, at: Span): void {
  if (nameTaken(diagnostics, models, LOGIN_NAME_MODEL, 'its store of the plain forms of usernames')) return;
  const fields = [
    synthesizedField('plain_name', {
      primaryKey: true,
      required: true,
      helpText: 'a username with its accents left out and its lookalike letters read as Latin',
    }),
    synthesizedField('username', {
      required: true,
      helpText: 'the username that claimed it (a claim whose user no longer has that name is free)',
    }),
  ];
  models.set(LOGIN_NAME_MODEL, {
    ...synthesizedModel(at, fields),
    name: LOGIN_NAME_MODEL,
    table: 'auth_login_name',
    plural: 'auth_login_names',
    schemaFile: '(svcgen: plain forms of usernames)',
    title: 'Plain forms of usernames',
    internal: true,
    primaryKey: 'plain_name',
  });
}

function nameTaken(
  diagnostics: DiagnosticBag,
  models: ReadonlyMap<string, ModelDraft>,
  name: string,
  what: string,
): boolean {
  const taken = models.get(name);
  if (!taken) return false;
  diagnostics.report('SVC2104', `model ${name} is the name svcgen gives ${what}`, {
    span: taken.definedAt,
    hint: 'rename the resource: its model takes its name from the resource (/auth_credentials is AuthCredential)',
  });
  return true;
}
