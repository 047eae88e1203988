// Created by svcgen from api.raml; this file is yours: svcgen never changes it. Your own plugins and routes.
import type { AppContext } from '../app-context.js';

/**
 * Your own Fastify plugins, hooks and routes: called once, after the API's routes are
 * registered. `context.app` is the root instance, so routes added here live outside the base
 * path unless registered with `{ prefix: context.basePath }`; `context.db` has the repositories
 * of every model, `context.config` the settings. For example:
 *
 *   context.app.get('/version', async () => ({ version: '1.0.0' }));
 */
export async function extend(context: AppContext): Promise<void> {}
