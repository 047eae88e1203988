/**
 * In-process subscribers of committed events: the types and bindings of `src/committed.ts`, and
 * the user's stub of each model whose objects the routes change.
 */
import { planned, type Artifact } from '../artifact.js';
import { templateSource as template } from '../views.js';
import { committedStubs, committedView } from './views.js';

export const outbox: Artifact = {
  name: 'outbox',
  files: ({ ir }) => [
    planned(
      'src/committed.ts',
      'The events of committed changes, typed per model, and the in-process subscribers of each model.',
      template('committed.ts', committedView(ir)),
    ),
    ...committedStubs(ir).map(({ path, view }) =>
      planned(
        path,
        `What runs after a change of ${view.article} is committed.`,
        template('committed-stub.ts', view),
        'user',
      ),
    ),
  ],
};
