/** The HTTP routes: one Fastify plugin per top-level resource, with every route below it. */
import { planned, type Artifact } from '../artifact.js';
import { routeGroupNames } from '../shared/names.js';
import { templateSource as template } from '../views.js';
import { routeGroups, routesView } from './views.js';

export const routes: Artifact = {
  name: 'routes',
  files: ({ ir, types }) =>
    [...routeGroups(ir)].map(([group, groupRoutes]) =>
      planned(
        `src/routes/${routeGroupNames(group).file}.ts`,
        `The routes below /${group}.`,
        template('routes.ts', routesView(ir, group, groupRoutes, types)),
      ),
    ),
};
