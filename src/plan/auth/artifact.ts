/**
 * Authentication and access control, for APIs that describe them: the schemes and x-ACLs as data,
 * the tests of the ACL matrix and of the auth routes, and the user's stub of each `{{principal}}` the ACLs name.
 */
import { planned, type Artifact } from '../artifact.js';
import { principalModule } from '../shared/names.js';
import { templateSource as template } from '../views.js';
import { aclTestView, authTestView, authView, principalStubView, principalTypesView } from './views.js';

export const auth: Artifact = {
  name: 'auth',
  files: ({ ir }) => [
    ...(ir.auth
      ? [
          planned(
            'src/auth.ts',
            'The authentication schemes, the user model and the x-ACLs of the API.',
            template('auth.ts', authView(ir, ir.auth)),
          ),
          planned(
            'test/acl.test.ts',
            'Checks every route against the ACL matrix (svcgen inspect --acl), for anonymous callers, members, owners and admins.',
            template('acl.test.ts', aclTestView(ir)),
          ),
          planned(
            'test/auth.test.ts',
            'Registering, logging in and out, and API tokens, through the typed client.',
            template('auth.test.ts', authTestView(ir.auth)),
          ),
        ]
      : []),
    ...(ir.userCode.principals.length
      ? [
          planned(
            'src/principals.ts',
            'The objects each ACL principal is asked about, as the x-ACLs that name it say.',
            template('principals.ts', principalTypesView(ir)),
          ),
        ]
      : []),
    ...ir.userCode.principals.map((principal) =>
      planned(
        `src/${principalModule(principal.name)}.ts`,
        `The {{${principal.name}}} ACL principal.`,
        template('principal-stub.ts', principalStubView(ir, principal)),
        'user',
      ),
    ),
  ],
};
