/**
 * The project around the code: package.json, service.ini (the user's), the README, the container
 * files, the app that registers every plugin, the settings reader, and the user's extension module.
 */
import { planned, type Artifact } from '../artifact.js';
import { templateSource as template } from '../views.js';
import { containerView } from './container.js';
import { packageJson } from './package.js';
import { readmeView } from './readme.js';
import { appView, configView, serviceIniView } from './views.js';

export const project: Artifact = {
  name: 'project',
  files: ({ ir }) => [
    planned('package.json', '', { kind: 'text', content: packageJson(ir) }),
    planned(
      'service.ini',
      'Settings of the service; every key can be overridden by an SVC_<KEY> environment variable.',
      template('service.ini', serviceIniView(ir)),
      'user',
    ),
    planned('README.md', 'How to run the service, and its HTTP API.', template('README.md', readmeView(ir))),
    planned(
      'Dockerfile',
      'The service in a container: build, then run as an unprivileged user.',
      template('Dockerfile', containerView(ir)),
    ),
    planned(
      'compose.yaml',
      'The service and a PostgreSQL server (MongoDB commented out) for docker compose.',
      template('compose.yaml', containerView(ir)),
    ),
    planned(
      'src/app.ts',
      'The service as a Fastify instance: every route plugin below the base path.',
      template('app.ts', appView(ir)),
    ),
    planned(
      'src/config.ts',
      'Reads service.ini and the SVC_* environment variables.',
      template('config.ts', configView(ir)),
    ),
    planned('src/custom/extend.ts', 'Your own plugins and routes.', template('extend-stub.ts', {}), 'user'),
  ],
};
