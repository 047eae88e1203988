/** The typed client: its own package in client/, generated from the routes and models the server has. */
import { planned, type Artifact } from '../artifact.js';
import { templateSource as template } from '../views.js';
import { clientPackageJson, clientTsconfig, clientView } from './views.js';

export const client: Artifact = {
  name: 'client',
  files: async ({ ir, types }) => [
    planned('client/package.json', '', { kind: 'text', content: clientPackageJson(ir) }),
    planned('client/tsconfig.json', '', { kind: 'text', content: clientTsconfig() }),
    planned(
      'client/src/index.ts',
      'The typed client of this API: one accessor per resource, with the routes it has.',
      template('client.ts', await clientView(ir, types)),
    ),
  ],
};
