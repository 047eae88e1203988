/**
 * Every artifact of a generated project, each planned by the folder of its name. A new artifact
 * is a folder with an `artifact.ts`, and a line here.
 */
import type { Artifact } from './artifact.js';
import { auth } from './auth/artifact.js';
import { client } from './client/artifact.js';
import { events } from './events/artifact.js';
import { migrations } from './migrations/artifact.js';
import { models } from './models/artifact.js';
import { openapi } from './openapi/artifact.js';
import { outbox } from './outbox/artifact.js';
import { project } from './project/artifact.js';
import { routes } from './routes/artifact.js';
import { runtime } from './runtime/artifact.js';
import { tests } from './tests/artifact.js';

export const ARTIFACTS: readonly Artifact[] = [
  project,
  runtime,
  models,
  routes,
  openapi,
  auth,
  events,
  outbox,
  tests,
  client,
  migrations,
];
